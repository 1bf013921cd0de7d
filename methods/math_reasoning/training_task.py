"""Train the student on a selected training set, then evaluate it: STAT's Table 3 protocol at small scale.

A dataset is the student (a pre-trained tiny model whose skill mix left some skills rare), the training
pool P ("MATH-train": uniform over skills, one reference answer each), the labelled validation questions
Q_val (what STAT profiles), and three test columns: in-distribution (ID, 1-3 steps), its hard subset
(the ID items the base student gets wrong: the paper's MATH^D, model-specific) and out-of-distribution
(4-step chains, longer than any ID problem). A method chooses at most `budget` QA pairs; the task's
`TrainingMethod` base class fine-tunes a copy of the student on them with one fixed recipe for every method
and answers the test questions greedily. Seeds change the selection's sampling and the SFT order, never the
data. The predictions table has a row per test question with its verdict (and, for reading, its `subset`);
scoring takes each question's column from the instance, so every column is re-scorable.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.loader_arguments import whole_number
from harness.model_cache import model_folder
from harness.predictions_schema import Column, PredictionsSchema
from methods.math_reasoning import generator, tiny_model
from methods.math_reasoning.answers import check_answer
from methods.math_reasoning.problems import Problem

if TYPE_CHECKING:  # sft imports torch: validating and planning a suite load this task without it
    from methods.math_reasoning.sft import SFTConfig

POOL_SEED, VAL_SEED, TEST_SEED, OOD_SEED = 60_000, 61_000, 62_000, 63_000  # disjoint from pre-training (10,000+)
SUBSETS = ("id", "hard", "ood")


@dataclass(frozen=True)
class TrainingInputs:
    """What a training-set method sees: never the test answers."""

    student_dir: Path
    teacher: Mapping[str, Any]  # STAT-Syn's solver, resolved by `teacher_folder` only when a method needs it
    pool: list[Problem]
    validation: list[Problem]
    validation_responses: list[str]  # the student's greedy answers to them: stage 1's input
    test_questions: list[str]
    budget: int
    sft: SFTConfig


@dataclass(frozen=True)
class TrainingOutput:
    responses: list[str]


@dataclass(frozen=True)
class SkillTrainingData:
    student_dir: Path
    teacher: Mapping[str, Any]
    pool: list[Problem]
    validation: list[Problem]
    validation_responses: list[str]
    test: list[Problem]
    ood: list[Problem]
    hard_ids: frozenset[str]
    budget: int
    sft: SFTConfig


def _model_options(options: Mapping[str, Any] | None, field: str) -> dict[str, Any]:
    if options is not None and not isinstance(options, Mapping):
        raise DataError(f"{field} must be a mapping, got {options!r}", field=f"args.{field}",
                        hint="Use {path: DIR} for a local model folder, or {config: {...}} for a prepared tiny model.")
    return dict(options or {})


def _model(options: Mapping[str, Any] | None, field: str) -> Path:
    return model_folder(_model_options(options, field), tiny_model.prepare, tiny_model.StudentConfig)


def skill_training(student: Mapping[str, Any] | None = None, teacher: Mapping[str, Any] | None = None,
                   pool: int = 4000, validation: int = 300, test: int = 300, ood: int = 150, budget: int = 1200,
                   sft: Mapping[str, Any] | None = None) -> SkillTrainingData:
    """The generated pool and evaluation sets, the student (default: the family's tiny GPT-2) and the
    STAT-Syn teacher (default: a tiny Llama pre-trained on a uniform skill mix)."""
    sizes = {name: whole_number(value, f"args.{name}") for name, value in
             (("pool", pool), ("validation", validation), ("test", test), ("ood", ood), ("budget", budget))}
    from methods.math_reasoning.sft import SFTConfig

    try:
        recipe = SFTConfig(**dict(sft or {}))
    except TypeError as exc:
        raise DataError(f"bad sft recipe: {exc}", field="args.sft", hint="Known: steps, batch_size, learning_rate, "
                        "weight_decay, warmup_fraction, grad_clip, max_length.") from None
    teacher_options = _model_options(teacher if teacher is not None else tiny_model.UNIFORM_TEACHER, "teacher")
    student_dir = _model(student, "student")
    validation_set = generator.problem_set(sizes["validation"], VAL_SEED, prefix="val")
    test_set = generator.problem_set(sizes["test"], TEST_SEED, prefix="test")
    answers = base_answers(student_dir, [*validation_set, *test_set])
    hard = [p.id for p, a in zip(test_set, answers[len(validation_set):], strict=True)
            if not check_answer(p.answer, a).correct]
    return SkillTrainingData(
        student_dir, teacher_options,
        generator.problem_set(sizes["pool"], POOL_SEED, prefix="pool"), validation_set,
        answers[:len(validation_set)], test_set,
        generator.problem_set(sizes["ood"], OOD_SEED, steps=(4, 4), prefix="ood"), frozenset(hard),
        sizes["budget"], recipe)


def teacher_folder(teacher: Mapping[str, Any]) -> Path:
    """The STAT-Syn solver's folder (prepared on first use when it is a tiny-model config)."""
    return _model(teacher, "teacher")


def base_answers(student_dir: Path, problems: list[Problem]) -> list[str]:
    """The base student's greedy answers, computed once per dataset: on the validation questions they are
    STAT's stage-1 input; the test items it gets wrong form the hard (MATH^D) column."""
    from methods.math_reasoning.generation import generate

    model, tokenizer = tiny_model.load(student_dir)
    return generate(model, tokenizer, [p.question for p in problems]).texts


class SkillTraining(Task):
    """Accuracy per test column after the method's training set and the shared SFT recipe."""

    # One row per test question with the scorer's verdict; its column (id, hard, ood) comes from the instance.
    predictions_schema = PredictionsSchema(
        (Column("id", "text", description="the test question's id"),
         Column("correct", "boolean", description="the verdict of the harness scorer (math-verify)")),
        sample="id")

    def test_samples(self, instance: Instance) -> list[str]:
        return instance.truth["id"].tolist()

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "training", "the set sizes are arguments of the dataset")

    tiny_instance_is_slow = True  # a tiny student and teacher are pre-trained (into the model cache) first

    def tiny_instance(self, seed: int) -> Instance:
        """A 200-problem pool, a 24-pair budget, 3 SFT steps, on a student and a teacher pre-trained in seconds."""
        teacher = {**tiny_model.TINY_STUDENT, "seed": 1}
        data = skill_training(student=tiny_model.TINY_STUDENT, teacher=teacher, pool=200, validation=20, test=12,
                              ood=6, budget=24, sft={"steps": 3, "batch_size": 8})
        return self.instance(data, {}, seed)

    def instance(self, data: SkillTrainingData, split: Mapping[str, Any], seed: int) -> Instance:
        problems = [*data.test, *data.ood]
        inputs = TrainingInputs(data.student_dir, data.teacher, data.pool, data.validation,
                                data.validation_responses, [p.question for p in problems], data.budget, data.sft)
        ood_ids = {p.id for p in data.ood}
        subsets = ["ood" if p.id in ood_ids else "hard" if p.id in data.hard_ids else "id" for p in problems]
        return Instance(inputs=inputs, truth=pd.DataFrame({"id": [p.id for p in problems],
                                                           "gold": [p.answer for p in problems], "subset": subsets}))

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if isinstance(output, pd.DataFrame):
            return output
        if not isinstance(output, TrainingOutput):
            raise TypeError(f"a training-set method returns TrainingOutput, got {type(output).__name__}")
        table = instance.truth.copy()
        checks = [check_answer(g, r) for g, r in zip(table["gold"], output.responses, strict=True)]
        table["response"] = output.responses
        table["extracted"] = [c.extracted for c in checks]
        table["correct"] = [c.correct for c in checks]
        table["parsed"] = [c.parsed for c in checks]
        return table

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        truth: pd.DataFrame = instance.truth
        table = truth.assign(correct=predictions.set_index("id")["correct"].loc[truth["id"]].to_numpy())
        return {key: metric(table) for key, metric in metrics.items()}


def _column_accuracy(subsets: tuple[str, ...]):
    def accuracy(table: pd.DataFrame) -> float:
        rows = table[table["subset"].isin(subsets)]
        return float(rows["correct"].mean() * 100.0) if len(rows) else float("nan")
    return accuracy


def _average(table: pd.DataFrame) -> float:
    """The paper's Avg column: the mean of the column accuracies (ID, hard, OOD)."""
    return float(np.nanmean([_column_accuracy(c)(table) for c in (("id", "hard"), ("hard",), ("ood",))]))


ACCURACY_ID = Metric("accuracy_id", _column_accuracy(("id", "hard")), higher_is_better=True, unit="%",
                     description="greedy accuracy on the in-distribution test set (1-3 steps), x100")
ACCURACY_HARD = Metric("accuracy_hard", _column_accuracy(("hard",)), higher_is_better=True, unit="%",
                       description="accuracy on the ID items the base student gets wrong (the paper's MATH^D), x100")
ACCURACY_OOD = Metric("accuracy_ood", _column_accuracy(("ood",)), higher_is_better=True, unit="%",
                      description="accuracy on 4-step chains, longer than any ID problem, x100")
ACCURACY_AVG = Metric("accuracy_avg", _average, higher_is_better=True, unit="%",
                      description="mean of the ID, hard and OOD accuracies (the paper's Avg column)")
