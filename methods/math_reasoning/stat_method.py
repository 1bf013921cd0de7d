"""STAT-Sel and STAT-Syn as training-set methods: stages 1-3 of `stat.py` run on the student's own answers.

Parameters: `difficulty` (oracle | consistency), `teacher_noise` (the probability that the programmatic
teacher names a wrong skill), `k` (questions per (difficult question, missing skill), STAT-Sel).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, get_args

import numpy as np

from harness import RunContext
from methods.math_reasoning import generation, stat, tiny_model
from methods.math_reasoning.params import Difficulty, StatParams, StatSelParams, StatSynParams
from methods.math_reasoning.problems import Problem
from methods.math_reasoning.training_method import TrainingSetMethod, record_skill_shares
from methods.math_reasoning.training_task import TrainingInputs, teacher_folder

DIFFICULTY_RULES: tuple[str, ...] = get_args(Difficulty)
CONSISTENCY_TEMPERATURE = 0.7  # the paper does not give the sampling temperature of its consistency rule


@dataclass(frozen=True)
class Profiled:
    difficult: list[Problem]
    responses: dict[str, str]  # question id -> the student's greedy answer


def difficult_questions(inputs: TrainingInputs, ctx: RunContext, rule: str) -> Profiled:
    """Stage 1 on Q_val; records both rules' agreement with the oracle (the paper's Table 11)."""
    if rule not in DIFFICULTY_RULES:
        raise ValueError(f"difficulty must be one of {DIFFICULTY_RULES}, got {rule!r}")
    greedy = inputs.validation_responses
    oracle = stat.oracle_difficult(inputs.validation, greedy)
    flags = oracle
    if rule == "consistency":
        model, tokenizer = tiny_model.load(inputs.student_dir)
        questions = [p.question for p in inputs.validation]
        sampled = [generation.generate(model, tokenizer, questions, generation.Decoding(CONSISTENCY_TEMPERATURE),
                                       seed=ctx.seed * 100 + i).texts for i in range(stat.CONSISTENCY_SAMPLES)]
        flags = stat.consistency_difficult(list(zip(*sampled, strict=True)))
        for name, value in stat.classifier_agreement(flags, oracle).items():
            ctx.record(f"consistency_{name}", value, "%")
    ctx.record("difficult_fraction", 100.0 * float(np.mean(flags)), "%")
    difficult = [p for p, flag in zip(inputs.validation, flags, strict=True) if flag]
    return Profiled(difficult, {p.id: r for p, r in zip(inputs.validation, greedy, strict=True)})


SP = TypeVar("SP", bound=StatParams)


class _Stat(TrainingSetMethod[SP]):
    def profile(self, inputs: TrainingInputs, ctx: RunContext) -> dict[str, list[str]]:
        """Stages 1 and 2: difficult validation question -> its missing skills."""
        found = difficult_questions(inputs, ctx, self.params.difficulty)
        profile = stat.missing_skill_profile(found.difficult, [found.responses[p.id] for p in found.difficult],
                                             self.params.teacher_noise, ctx.seed)
        for skill, count in stat.skill_histogram(profile).items():
            ctx.record(f"missing_{skill}", count)
        if not profile:
            raise ValueError("the missing-skill profile is empty: the student answered every validation question "
                             "right (or the teacher found no wrong step); STAT has nothing to target")
        return profile


class StatSel(_Stat[StatSelParams]):
    """STAT-Sel: k Skill-Map questions per (difficult question, missing skill), 3 answers each."""

    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        profile = self.profile(inputs, ctx)
        for skill, weight in stat.implied_weights(inputs.pool, profile, self.params.k).items():
            ctx.record(f"implied_weight_{skill}", weight)
        chosen = stat.stat_sel(inputs.pool, profile, inputs.budget, ctx.seed, self.params.k)
        record_skill_shares(ctx, chosen)
        return [(p.question, p.solution) for p in chosen]


class StatSyn(_Stat[StatSynParams]):
    """STAT-Syn: new questions per missing skill, solved 3 times by the teacher model at `temperature`, kept
    when >= 2 answers agree; rounds of synthesis repeat until the budget is filled (at most `max_rounds`)."""

    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        profile = self.profile(inputs, ctx)
        teacher, tokenizer = tiny_model.load(teacher_folder(inputs.teacher), field="args.teacher.path")
        pairs: list[tuple[str, str]] = []
        kept_problems: list[Problem] = []
        questions = kept = kept_correct = 0
        for round_index in range(self.params.max_rounds):
            batch = stat.synthesis_questions(profile, seed=ctx.seed * 1000 + round_index)
            batch = [Problem(**{**p.__dict__, "id": f"{p.id}-r{round_index}"}) for p in batch]
            solutions = [generation.generate(teacher, tokenizer, [p.question for p in batch],
                                             generation.Decoding(self.params.temperature),
                                             seed=ctx.seed * 1000 + 10 * round_index + i).texts
                         for i in range(stat.SYN_SOLUTIONS)]
            new_pairs, yielded = stat.consistency_filter(batch, list(zip(*solutions, strict=True)))
            pairs += new_pairs
            kept_problems += [p for p in batch if any(q == p.question for q, _ in new_pairs)]
            questions, kept, kept_correct = (questions + yielded.questions, kept + yielded.kept,
                                             kept_correct + yielded.kept_correct)
            if len(pairs) >= inputs.budget:
                break
        ctx.record("synthesised_questions", questions)
        ctx.record("synthesis_kept", 100.0 * kept / max(1, questions), "%")
        ctx.record("synthesis_kept_correct", 100.0 * kept_correct / max(1, kept), "%", higher_is_better=True)
        record_skill_shares(ctx, kept_problems)
        return stat.subsample(pairs, inputs.budget, np.random.default_rng(ctx.seed))
