"""Teacher selection (GRACE's protocol): score each candidate teacher for a student, and check the scores
against the accuracy the student reaches when distilled from that teacher.

The dataset (`teacher_pool`) is a student and a pool of teachers (`teachers.py`). For each teacher it builds
- the scoring set, per run seed: its m responses to each of n prompts, in GRACE's text format
  (`gradients.grace_example`), laid out prompt by prompt with prompt ids 0..n-1, so GRACE's splits keep a
  prompt's responses together. Every seed draws its own n prompts (and the teachers' responses to them), so
  seeds vary the data a score sees, not only GRACE's projection and splits;
- the ground truth: a fresh copy of the student SFT'd on the teacher's responses to `distill_questions`
  training questions (one each), then its greedy accuracy on `test` held-out problems. This is the
  expensive part; it is computed once per (student weights, teacher recipe, distillation recipe) and cached
  as JSON under `cache_root()/math-grace-truth/<digest>/truth.json`, published atomically.
LM teachers' sampled responses are cached the same way (`math-grace-responses/`), since the harness loads a
dataset in the coordinator and again in each worker.

Subsampling: the released `tokenize_data.py` keeps `data[:subsample_responses]` under
`--subsample-questions`, i.e. 4 questions instead of 512. Here the n prompts are drawn as n prompts and each
gets its m responses (n x m rows), which is what the paper describes.

Data seeds, disjoint from each other and from the student's pre-training (10,000 + seed) and its skill check
(20,000 + seed): scoring prompts 61,000,000 + run seed, distillation questions 62,000, test problems 63,000.
Nothing is tuned on the test problems: the distillation recipe is fixed before any teacher is seen.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.fingerprint import digest
from harness.loader_arguments import whole_number
from harness.model_cache import cache_root, model_folder, publish
from harness.predictions_schema import Column, PredictionsSchema
from methods.math_reasoning import generator, teachers, tiny_model
from methods.math_reasoning.grace import selection_regret, spearman
from methods.math_reasoning.problems import Problem
from methods.math_reasoning.teachers import Teacher

PROMPT_SEED, DISTILL_SEED, TEST_SEED = 61_000_000, 62_000, 63_000  # scoring prompts: PROMPT_SEED + run seed
TRUTH_VERSION = 1  # bump when the ground-truth recipe's code changes
MIN_PROMPTS = 10  # GRACE holds out 10 % of the prompts per split: fewer than 10 leaves no held-out prompt
LM_TEACHER = {"kind": "lm", "name": "uniform", "temperatures": [0.3, 0.6, 1.0, 1.4],
              "model": tiny_model.UNIFORM_TEACHER}
DEFAULT_TEACHERS = ({"kind": "cot"}, {"kind": "answer_only"}, {"kind": "noisy", "name": "noisy30", "noise": 0.3},
                    {"kind": "wrong_format"}, {"kind": "random"}, LM_TEACHER)
TEACHER_KEYS = {"kind", "name", "noise", "temperature", "temperatures", "model", "max_new_tokens"}


@dataclass(frozen=True)
class DistillRecipe:
    """How the ground truth is made: the SFT of the student on a teacher's data, and the test set."""

    distill_questions: int = 1000
    steps: int = 200
    batch_size: int = 32
    learning_rate: float = 1e-3
    test: int = 300


@dataclass(frozen=True)
class TeacherData:
    """What a scoring method may see of one teacher: its responses and their GRACE-format tokens."""

    teacher: str
    kind: str
    temperature: float | None
    questions: tuple[str, ...]  # the n prompts
    gold: tuple[str, ...]  # the prompts' gold answers (a teacher's own accuracy is a legitimate baseline)
    responses: tuple[str, ...]  # n x m, prompt by prompt
    prompt_ids: np.ndarray  # n x m, the prompt of each response
    examples: tuple[tuple[tuple[int, ...], int], ...]  # (input_ids, prompt_length) per response

    @property
    def digest(self) -> str:
        """A key of the scoring data (tokens and prompt ids), for caching what is computed from it."""
        return digest({"examples": self.examples, "prompt_ids": self.prompt_ids.tolist()})


@dataclass(frozen=True)
class PoolInputs:
    """The method's view: the student's folder and each teacher's scoring data."""

    student_dir: Path
    teachers: tuple[TeacherData, ...]
    cache_dir: Path | None = None  # where the methods cache what they compute (None: cache_root()'s default)


@dataclass(frozen=True)
class TeacherPool:
    student_dir: Path
    teachers: tuple[Teacher, ...]
    prompts: int  # n scoring prompts a seed draws
    responses: int  # m responses per prompt
    truth: tuple[Mapping[str, Any], ...]  # the cached ground-truth record per teacher
    cache_dir: Path | None = None

    @property
    def accuracies(self) -> np.ndarray:
        return np.array([t["student_accuracy"] for t in self.truth])

    def scoring_set(self, seed: int) -> tuple[TeacherData, ...]:
        """Each teacher's scoring data on the run seed's own n prompts (`PROMPT_SEED + seed`)."""
        _, tokenizer = tiny_model.load(self.student_dir)
        prompts = generator.problem_set(self.prompts, PROMPT_SEED + seed)
        return tuple(scoring_data(t, tokenizer, prompts, self.responses, PROMPT_SEED + seed, self.cache_dir)
                     for t in self.teachers)


@dataclass
class TeacherScores:
    """A method's output: one score per teacher, in the pool's order; lower means a better teacher."""

    scores: Sequence[float]


def parse_teachers(entries: Sequence[Mapping[str, Any]], cache_dir: str | Path | None) -> list[Teacher]:
    """Teachers from the suite's mappings; an LM entry with `temperatures` becomes one teacher per value."""
    out: list[Teacher] = []
    for i, entry in enumerate(entries):
        where = f"args.teachers[{i}]"
        if not isinstance(entry, Mapping):
            raise DataError(f"a teacher is a mapping with a 'kind', got {entry!r}", field=where)
        unknown = sorted(set(entry) - TEACHER_KEYS)
        if unknown:
            raise DataError(f"unknown key {unknown[0]!r}", field=f"{where}.{unknown[0]}",
                            hint=f"Known: {', '.join(sorted(TEACHER_KEYS))}.")
        kind = entry.get("kind")
        if kind not in teachers.KINDS:
            raise DataError(f"unknown teacher kind {kind!r}", field=f"{where}.kind",
                            hint=f"Known: {', '.join(teachers.KINDS)}.")
        name = str(entry.get("name", kind))
        if kind != "lm":
            noise = entry.get("noise", 0.0)
            if not isinstance(noise, (int, float)) or not 0 <= noise <= 1:
                raise DataError(f"must be a fraction in [0, 1], got {noise!r}", field=f"{where}.noise")
            out.append(Teacher(name, kind, noise=float(noise)))
            continue
        key = "temperatures" if "temperatures" in entry else "temperature"
        values = entry.get(key, [0.0])
        for value in values if isinstance(values, list) else [values]:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise DataError(f"a temperature must be a number >= 0, got {value!r}", field=f"{where}.{key}")
        model = dict(entry.get("model") or {})
        if "path" not in model:
            model.setdefault("cache_dir", cache_dir)
        folder = model_folder(model, tiny_model.prepare, tiny_model.StudentConfig)
        for value in values if isinstance(values, list) else [values]:
            out.append(Teacher(f"{name}_t{value:g}", "lm", float(value), model_dir=folder,
                               max_new_tokens=whole_number(entry.get("max_new_tokens", 96), f"{where}.max_new_tokens")))
    names = [t.name for t in out]
    if len(set(names)) != len(names):
        raise DataError(f"teacher names repeat: {sorted({n for n in names if names.count(n) > 1})}",
                        field="args.teachers", hint="Give each teacher its own 'name'.")
    return out


def _cached_json(folder: Path, compute) -> dict:  # noqa: ANN001
    """`folder/record.json`, computed and published atomically (a lost race keeps the winner's) if absent."""
    path = folder / "record.json"
    if path.is_file():
        return json.loads(path.read_text())
    record = compute()

    def write(staging: Path) -> None:
        (staging / "record.json").write_text(json.dumps(record) + "\n")

    publish(folder, write)
    return json.loads(path.read_text())


def teacher_responses(teacher: Teacher, problems: Sequence[Problem], m: int, seed: int,
                      cache_dir: str | Path | None = None) -> list[list[str]]:
    """`teachers.answer`, cached on disk for LM teachers (sampling is the slow part of loading a pool)."""
    if teacher.kind != "lm":
        return teachers.answer(teacher, problems, m, seed)
    key = digest({"teacher": teacher.recipe(), "questions": [p.question for p in problems], "m": m, "seed": seed})
    folder = cache_root(cache_dir) / "math-grace-responses" / key
    return _cached_json(folder, lambda: {"responses": teachers.answer(teacher, problems, m, seed)})["responses"]


def student_key(student_dir: Path) -> list[str]:
    """The student's identity for cache keys (`teachers.weights_key`); a folder without weights is refused."""
    key = teachers.weights_key(student_dir)
    if not key:
        raise DataError(f"no model weights in {student_dir}", field="args.student")
    return key


def ground_truth(student_dir: Path, teacher: Teacher, recipe: DistillRecipe, seed: int = 0,
                 cache_dir: str | Path | None = None) -> dict:
    """The student's greedy test accuracy (%) after SFT on the teacher's distillation data, cached."""
    key = digest({"student": student_key(student_dir), "teacher": teacher.recipe(), "recipe": asdict(recipe),
                  "seeds": [DISTILL_SEED, TEST_SEED, seed], "version": TRUTH_VERSION})
    folder = cache_root(cache_dir) / "math-grace-truth" / key
    return _cached_json(folder, lambda: distill_and_test(student_dir, teacher, recipe, seed, cache_dir))


def distill_and_test(student_dir: Path, teacher: Teacher, recipe: DistillRecipe, seed: int = 0,
                     cache_dir: str | Path | None = None) -> dict:
    """SFT a fresh copy of the student on the teacher's responses, then greedy accuracy on the test set."""
    from methods.math_reasoning import sft
    from methods.math_reasoning.answers import accuracy, check_answer
    from methods.math_reasoning.generation import generate

    questions = generator.problem_set(recipe.distill_questions, DISTILL_SEED)
    responses = teacher_responses(teacher, questions, 1, DISTILL_SEED, cache_dir)
    model, tokenizer = tiny_model.load(student_dir)
    encoded = [sft.encode_pair(tokenizer, q.question, r[0]) for q, r in zip(questions, responses, strict=True)]
    trace = sft.train(model, tokenizer.pad_token_id, encoded, sft.SFTConfig(
        steps=recipe.steps, batch_size=recipe.batch_size, learning_rate=recipe.learning_rate), seed)
    test = generator.problem_set(recipe.test, TEST_SEED)
    texts = generate(model, tokenizer, [p.question for p in test]).texts
    verdicts = [check_answer(p.answer, t) for p, t in zip(test, texts, strict=True)]
    return {"teacher": teacher.name, "student_accuracy": accuracy([v.correct for v in verdicts]),
            "unanswered": sum(v.extracted is None for v in verdicts), "sft_first_loss": trace.first_loss,
            "sft_final_loss": trace.final_loss, "sft_s": round(trace.train_s, 1), "recipe": asdict(recipe)}


def scoring_data(teacher: Teacher, tokenizer, prompts: Sequence[Problem], m: int, seed: int,  # noqa: ANN001
                 cache_dir: str | Path | None = None) -> TeacherData:
    """The teacher's m responses (sampled with `seed`) to each of the n prompts, prompt by prompt, as
    GRACE-format examples."""
    from methods.math_reasoning.gradients import grace_example

    responses = teacher_responses(teacher, prompts, m, seed, cache_dir)
    flat = [r for per_prompt in responses for r in per_prompt]
    examples = tuple((tuple(ids), length) for ids, length in
                     (grace_example(tokenizer, p.question, r) for p, rs in zip(prompts, responses, strict=True)
                      for r in rs))
    return TeacherData(teacher.name, teacher.kind, teacher.temperature, tuple(p.question for p in prompts),
                       tuple(p.answer for p in prompts), tuple(flat), np.repeat(np.arange(len(prompts)), m), examples)


def teacher_pool(student: Mapping[str, Any] | None = None, teachers: Sequence[Mapping[str, Any]] = DEFAULT_TEACHERS,
                 prompts: int = 256, responses: int = 4, distill_questions: int = 1000, sft_steps: int = 200,
                 sft_batch_size: int = 32, sft_learning_rate: float = 1e-3, test: int = 300,
                 cache_dir: str | Path | None = None) -> TeacherPool:
    """A student (`{path: DIR}` or `tiny_model.prepare` options; the family's default tiny GPT-2), a pool of
    teachers (default: cot, answer_only, noisy30, wrong_format, random, and a uniform-skill tiny LM at
    0.3/0.6/1.0/1.4) and each teacher's cached ground truth; scoring sets are drawn per seed."""
    if student is not None and not isinstance(student, Mapping):
        raise DataError(f"student must be a mapping, got {student!r}", field="args.student",
                        hint="Use {path: DIR} for a local model folder, or tiny_model.prepare options.")
    if not isinstance(teachers, Sequence) or isinstance(teachers, str) or not teachers:
        raise DataError("teachers must be a non-empty list of teacher mappings", field="args.teachers")
    n = whole_number(prompts, "args.prompts", MIN_PROMPTS)
    m = whole_number(responses, "args.responses")
    if not isinstance(sft_learning_rate, (int, float)) or sft_learning_rate <= 0:
        raise DataError(f"must be a positive number, got {sft_learning_rate!r}", field="args.sft_learning_rate")
    recipe = DistillRecipe(whole_number(distill_questions, "args.distill_questions"),
                           whole_number(sft_steps, "args.sft_steps"),
                           whole_number(sft_batch_size, "args.sft_batch_size"),
                           float(sft_learning_rate), whole_number(test, "args.test"))
    pool = parse_teachers(teachers, cache_dir)
    options = dict(student or {})
    if "path" not in options:
        options.setdefault("cache_dir", cache_dir)
    student_dir = model_folder(options, tiny_model.prepare, tiny_model.StudentConfig)
    tiny_model.load(student_dir, "args.student.path")  # a folder that is not a model fails here, naming the field
    truth = tuple(ground_truth(student_dir, t, recipe, cache_dir=cache_dir) for t in pool)
    return TeacherPool(student_dir, tuple(pool), n, m, truth, Path(cache_dir) if cache_dir else None)


def spearman_x100(scores: np.ndarray, accuracies: np.ndarray) -> float:
    """Spearman of -score with student accuracy, x100 (scores are oriented lower-is-better)."""
    return 100.0 * spearman(scores, accuracies)


SPEARMAN = Metric("spearman", spearman_x100, higher_is_better=True, unit="%",
                  description="Spearman correlation (x100) over teachers of -score with the distilled student's "
                              "accuracy (GRACE's Figs. 2/4)")
REGRET = Metric("regret", selection_regret, higher_is_better=False, unit="points",
                description="best student accuracy in the pool minus that of the teacher with the lowest score")


class TeacherSelection(Task):
    """Contract (c): score every teacher of a pool for a student; scored against distilled-student accuracy."""

    # One row per teacher. The distilled student's accuracy comes from the instance: the table's
    # `student_accuracy` column is kept for reading (grace_report), not trusted.
    predictions_schema = PredictionsSchema(
        (Column("teacher", "text", description="the teacher's name in the pool"),
         Column("score", "number", description="the method's score; lower = better teacher")),
        sample="teacher")

    def test_samples(self, instance: Instance) -> list[str]:
        return [data.teacher for data in instance.inputs.teachers]

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "teacher-selection", "the pool's sizes are arguments of the dataset")

    tiny_instance_is_slow = True  # a tiny student is pre-trained and distilled from each teacher first

    def tiny_instance(self, seed: int) -> Instance:
        """Three synthetic teachers scored on 10 prompts x 2 responses, for a student pre-trained in seconds."""
        data = teacher_pool(tiny_model.TINY_STUDENT, [{"kind": "cot"}, {"kind": "answer_only"}, {"kind": "random"}],
                            prompts=10, responses=2, distill_questions=64, sft_steps=10, test=20)
        return self.instance(data, {}, seed)

    def instance(self, data: TeacherPool, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=PoolInputs(data.student_dir, data.scoring_set(seed), data.cache_dir),
                        truth=data.accuracies)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if isinstance(output, pd.DataFrame):
            return output
        if not isinstance(output, TeacherScores):
            raise TypeError(f"a teacher-scoring method returns TeacherScores, got {type(output).__name__}")
        pool: tuple[TeacherData, ...] = instance.inputs.teachers
        if len(output.scores) != len(pool):
            raise ValueError(f"{len(output.scores)} scores for {len(pool)} teachers")
        return pd.DataFrame({"teacher": [t.teacher for t in pool], "kind": [t.kind for t in pool],
                             "temperature": [np.nan if t.temperature is None else t.temperature for t in pool],
                             "score": np.asarray(output.scores, dtype=np.float64),
                             "student_accuracy": instance.truth})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scores = predictions.set_index("teacher")["score"].loc[self.test_samples(instance)].to_numpy(np.float64)
        accuracies = np.asarray(instance.truth, dtype=np.float64)
        return {key: metric(scores, accuracies) for key, metric in metrics.items()}
