"""Math reasoning of small language models: STAT (skill-targeted adaptive training) and GRACE (teacher
selection from the student's gradients), ICLR 2026, scored as lm-eval and math-verify score: registrations only."""
from harness.registry import datasets, methods, metrics, tasks

_P = "methods.math_reasoning.params"  # parameter models, torch-free: validating a suite reads only them

# --- evaluation: a model on a problem set (the math_eval leaderboard) ---
E = "math_reasoning.evaluation"
tasks.add(E, "methods.math_reasoning.evaluation:Evaluation",
          "generate k solutions per problem, score each with the harness scorer (math-verify); the same problems "
          "every seed")
datasets.add("math_reasoning.generated", "methods.math_reasoning.evaluation:generated",
             "generated skill-labelled chains, uniform over skills: split id (1-3 steps) or ood (4 steps), count, seed")
datasets.add("math_reasoning.champ", "methods.math_reasoning.evaluation:champ",
             "the 270 CHAMP competition problems (champ-dataset 1.0.0)")
datasets.add("math_reasoning.math_jsonl", "methods.math_reasoning.evaluation:math_jsonl",
             "a Hendrycks MATH / MATH-500 JSONL file (path); on_error: raise or skip (skipped lines are counted)")
datasets.add("math_reasoning.gsm8k_jsonl", "methods.math_reasoning.evaluation:gsm8k_jsonl",
             "a GSM8K JSONL file (path); on_error: raise or skip (skipped lines are counted)")
datasets.add("math_reasoning.problems_jsonl", "methods.math_reasoning.evaluation:problems_jsonl",
             "the harness's own problem JSONL (path, as problems.write_jsonl writes it); on_error: raise or skip")
metrics.add("math_reasoning.accuracy", "methods.math_reasoning.evaluation:ACCURACY",
            "average-at-k of the harness scorer, x100 (pass@1 when greedy)")
metrics.add("math_reasoning.unparsed", "methods.math_reasoning.evaluation:UNPARSED",
            "rows whose answer math-verify could not parse, x100")
methods.add("math_reasoning.model_eval", "methods.math_reasoning.model_eval:ModelEvaluation",
            "a model (path or the family's tiny student) decoded greedily or sampled, through the harness's "
            "generation or lm-eval's hf backend", task=E,
            params=f"{_P}:ModelEvaluationParams")

# --- training: select or synthesise a training set, SFT the student, evaluate (STAT, math_stat) ---
T = "math_reasoning.training"
tasks.add(T, "methods.math_reasoning.training_task:SkillTraining",
          "fine-tune the student on a method's training set (equal budget, one SFT recipe), then greedy accuracy "
          "on in-distribution, hard (base-wrong) and out-of-distribution test columns")
datasets.add("math_reasoning.skill_training", "methods.math_reasoning.training_task:skill_training",
             "generated skill-labelled chain problems: training pool, validation (profiled), ID/hard/OOD tests; "
             "the student (default: the family's tiny GPT-2, skills multiply/divide rare) and the STAT-Syn teacher")
for _column in ("id", "hard", "ood", "avg"):
    metrics.add(f"math_reasoning.accuracy_{_column}",
                f"methods.math_reasoning.training_task:ACCURACY_{_column.upper()}",
                f"greedy accuracy, {_column} column, x100")
methods.add("math_reasoning.base", "methods.math_reasoning.baselines.base_model:BaseModel",
            "the pre-trained student, not trained further (STAT's Base row)", task=T,
            params="harness:MethodParams")
methods.add("math_reasoning.uniform_sft", "methods.math_reasoning.baselines.uniform_sft:UniformSFT",
            "MATH-Train: SFT on uniformly drawn training questions, one answer each", task=T,
            params="harness:MethodParams")
methods.add("math_reasoning.augment", "methods.math_reasoning.baselines.augment:Augment",
            "MATH-Augment: training questions with 3 rewritten answers each", task=T,
            params="harness:MethodParams")
methods.add("math_reasoning.hard", "methods.math_reasoning.baselines.hard:Hard",
            "MATH-Hard: only the hardest (longest) training questions, 3 answers each", task=T,
            params="harness:MethodParams")
methods.add("math_reasoning.embed_sel", "methods.math_reasoning.baselines.embed_sel:EmbedSel",
            "Embed-Sel: 5 MiniLM-nearest training questions per difficult validation question", task=T,
            params=f"{_P}:EmbedSelParams")
methods.add("math_reasoning.stat_sel", "methods.math_reasoning.stat_method:StatSel",
            "STAT-Sel (He et al., ICLR 2026): k Skill-Map questions per (difficult question, missing skill)", task=T,
            params=f"{_P}:StatSelParams")
methods.add("math_reasoning.stat_syn", "methods.math_reasoning.stat_method:StatSyn",
            "STAT-Syn (He et al., ICLR 2026): new questions for missing skills, kept when >= 2 of 3 teacher "
            "solutions agree", task=T,
            params=f"{_P}:StatSynParams")

# --- teacher selection: score teachers for a student (GRACE, math_grace) ---
S = "math_reasoning.teacher_selection"
tasks.add(S, "methods.math_reasoning.teacher_selection:TeacherSelection",
          "score every teacher of a pool for a student (lower = better); scored by Spearman and selection regret "
          "against the accuracy of the student distilled from each teacher")
datasets.add("math_reasoning.teacher_pool", "methods.math_reasoning.teacher_selection:teacher_pool",
             "a student (default: the family's tiny GPT-2) and a pool of synthetic and tiny-LM teachers, each with "
             "n prompts x m responses to score and its cached ground truth (SFT on its answers, greedy test accuracy)")
metrics.add("math_reasoning.spearman", "methods.math_reasoning.teacher_selection:SPEARMAN",
            "Spearman correlation (x100) of -score with distilled-student accuracy over the teachers")
metrics.add("math_reasoning.regret", "methods.math_reasoning.teacher_selection:REGRET",
            "best student accuracy in the pool minus that of the lowest-scored teacher (accuracy points)")
methods.add("math_reasoning.grace", "methods.math_reasoning.grace_method:Grace",
            "GRACE (Panigrahi et al., ICLR 2026): 10-split cross-validated tr(Σ̂⁻¹Σ_te) of projected gradients", task=S,
            params=f"{_P}:GraceParams")
methods.add("math_reasoning.grace_bias", "methods.math_reasoning.grace_method:GraceBias",
            "GRACE-Bias: the held-out mean gradient's term of GRACE", task=S,
            params=f"{_P}:GraceParams")
methods.add("math_reasoning.grace_variance", "methods.math_reasoning.grace_method:GraceVariance",
            "GRACE-Variance: the centred term of GRACE", task=S,
            params=f"{_P}:GraceParams")
methods.add("math_reasoning.g_norm", "methods.math_reasoning.baselines.g_norm:GNorm",
            "G-Norm: mean squared norm of the projected gradients (lower = already fits)", task=S,
            params=f"{_P}:GradientParams")
methods.add("math_reasoning.g_vendi", "methods.math_reasoning.baselines.g_vendi:GVendi",
            "G-Vendi (Jung et al. 2025): gradient eigen-entropy, negated (higher diversity = better)", task=S,
            params=f"{_P}:GradientParams")
methods.add("math_reasoning.teacher_accuracy", "methods.math_reasoning.baselines.teacher_accuracy:TeacherAccuracy",
            "the teacher's own accuracy on the scoring prompts, negated", task=S,
            params="harness:MethodParams")
methods.add("math_reasoning.initial_loss", "methods.math_reasoning.baselines.initial_loss:InitialLoss",
            "the student's mean response loss on the teacher's data", task=S,
            params=f"{_P}:InitialLossParams")
