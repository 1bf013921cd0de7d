"""Evaluate a model on a problem set (contract a): the task, its dataset loaders and its two metrics.

A dataset is a problem set only; the model is the method's parameter, so a leaderboard row is a model
(and how it is decoded) and a column a problem set. Every seed sees the same problems: for greedy
decoding the seed changes nothing, for sampled decoding it changes the samples. The predictions table
has one row per (problem, sample) with the harness scorer's verdict (`answers.check_answer`), so both
metrics are re-scorable from the table alone and the within-run bootstrap resamples problems.
"""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.math_reasoning import generator
from methods.math_reasoning.answers import AnswerCheck, average_at_k, check_answer
from harness.hf_datasets import read_rows, table_source
from methods.math_reasoning.problems import (ROW_FIELDS, LoadReport, OnError, Problem, SkippedLine, Style,
                                             load_champ, load_gsm8k_jsonl, load_math_jsonl, load_problems_jsonl,
                                             load_rows)

log = logging.getLogger(__name__)

# Disjoint from the student's pre-training data (10_000 + seed) and its skill checks (20_000 + seed).
GENERATED_SEEDS = {"id": 40_000, "ood": 45_000}
# In distribution: the 1-3 step chains of the training sets; out of distribution: 4-step chains.
GENERATED_STEPS = {"id": (1, 3), "ood": (4, 4)}
COLUMNS = ("id", "sample", "gold", "generation", "extracted", "correct", "parsed")


@dataclass(frozen=True)
class ProblemSet:
    """The problems to answer, where they came from, and the lines the loader skipped (file:line each)."""

    name: str
    problems: tuple[Problem, ...]
    skipped: tuple[SkippedLine, ...] = ()
    file: str | None = None

    def __post_init__(self) -> None:
        if not self.problems:
            raise DataError(f"problem set '{self.name}' is empty", file=self.file,
                            hint="Give at least one problem (count >= 1, or a file with a valid line).")


@dataclass(frozen=True)
class EvaluationOutput:
    """k generations per problem, in the problem set's order; `checks` when the method scored them already."""

    generations: Sequence[Sequence[str]]
    checks: Sequence[Sequence[AnswerCheck]] | None = None


def generated(split: Literal["id", "ood"] = "id", count: int = 300, seed: int = 0) -> ProblemSet:
    """Generated skill-labelled chains (`generator.py`), uniform over skills: the rare pre-training skills
    (multiply, divide) count as much as the common ones, so a missing skill shows in the accuracy."""
    if split not in GENERATED_SEEDS:
        raise DataError(f"split must be 'id' or 'ood', not {split!r}", field="args.split",
                        hint="id: 1-3 step chains as in training; ood: 4-step chains.")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise DataError(f"count must be a positive number of problems, got {count!r}", field="args.count")
    problems = generator.problem_set(count, GENERATED_SEEDS[split] + seed, steps=GENERATED_STEPS[split],
                                     prefix=f"{split}-")
    return ProblemSet(f"generated-{split}", tuple(problems))


def champ() -> ProblemSet:
    """The 270 CHAMP competition problems (`problems.load_champ`): real, and far beyond a tiny student."""
    return ProblemSet("CHAMP", tuple(load_champ()))


def _from_report(name: str, path: str, report: LoadReport) -> ProblemSet:
    for skipped in report.skipped:
        log.warning("skipped %s:%d: %s", path, skipped.line, skipped.reason)
    return ProblemSet(name, tuple(report.problems), tuple(report.skipped), str(path))


def math_jsonl(path: str, on_error: OnError = "raise") -> ProblemSet:
    """Hendrycks MATH / MATH-500 JSONL (`problems.load_math_jsonl`); skipped lines are logged and counted."""
    return _from_report(Path(path).name, path, load_math_jsonl(Path(path), on_error))


def gsm8k_jsonl(path: str, on_error: OnError = "raise") -> ProblemSet:
    """GSM8K JSONL (`problems.load_gsm8k_jsonl`); skipped lines are logged and counted."""
    return _from_report(Path(path).name, path, load_gsm8k_jsonl(Path(path), on_error))


def problems_jsonl(path: str, on_error: OnError = "raise") -> ProblemSet:
    """The harness's own problem JSONL (`problems.write_jsonl`); skipped lines are logged and counted."""
    return _from_report(Path(path).name, path, load_problems_jsonl(Path(path), on_error))


def hf_problems(format: str, path: str | None = None, style: Style = "math", split: str | None = None,
                fields: dict[str, str] | None = None, repo: str | None = None, config: str | None = None,
                cache_dir: str | None = None, on_error: OnError = "raise") -> ProblemSet:
    """MATH- or GSM8K-style problems (`style`) from local Hugging Face data in any `harness.hf_datasets` format;
    `fields` maps the style's field names to the data's columns. Bad rows are logged and counted under skip."""
    if style not in ROW_FIELDS:
        raise DataError(f"style must be one of {sorted(ROW_FIELDS)}, not {style!r}", field="args.style",
                        hint="math: problem, solution (answer boxed or given); gsm8k: question, answer ('#### n').")
    source = table_source(format, path, repo=repo, config=config, split=split, cache_dir=cache_dir, fields=fields)
    rows = read_rows(source, ROW_FIELDS[style])
    return _from_report(source.label, source.name, load_rows(rows, source.name, style, on_error))


def predictions_table(problems: Sequence[Problem], output: EvaluationOutput) -> pd.DataFrame:
    """One row per (problem, sample), scored by the harness scorer unless `output.checks` carries it."""
    generations = output.generations
    if len(generations) != len(problems):
        raise ValueError(f"{len(generations)} lists of generations for {len(problems)} problems")
    rows = []
    for index, (problem, samples) in enumerate(zip(problems, generations, strict=True)):
        checks = output.checks[index] if output.checks is not None else [check_answer(problem.answer, text)
                                                                         for text in samples]
        for sample, (text, check) in enumerate(zip(samples, checks, strict=True)):
            rows.append((problem.id, sample, problem.answer, text, check.extracted, check.correct, check.parsed))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def accuracy(table: pd.DataFrame) -> float:
    """Average-at-k in percent: per problem the share of its k correct samples, averaged (pass@1 at k=1)."""
    unit = "draw" if "draw" in table.columns else "id"  # `Evaluation.score` numbers bootstrap draws
    per_problem = table.groupby(unit, sort=False)["correct"].apply(lambda c: [bool(x) for x in c])
    return average_at_k(list(per_problem))


def unparsed(table: pd.DataFrame) -> float:
    """Percentage of rows whose verdict math-verify did not reach (no answer, prose, or unparseable)."""
    return 100.0 * float((~table["parsed"].astype(bool)).mean())


ACCURACY = Metric("accuracy", accuracy, higher_is_better=True, unit="%",
                  description="average-at-k of the harness scorer's verdicts, x100 (pass@1 when greedy); "
                              "reads the columns id, correct of a predictions table")
UNPARSED = Metric("unparsed", unparsed, higher_is_better=False, unit="%",
                  description="rows whose answer math-verify could not parse (scored by string comparison), x100")


class Evaluation(Task):
    """Generate k solutions per problem, score each with the harness scorer; the same problems every seed."""

    # One row per (problem, sample) with the scorer's verdict; the other columns (gold, generation, extracted)
    # are kept for reading, and a bring-your-own file may leave them out.
    predictions_schema = PredictionsSchema(
        (Column("id", "text", description="the problem's id"),
         Column("sample", "integer", description="the sample's number, 0 .. k-1"),
         Column("correct", "boolean", description="the verdict of the harness scorer (math-verify)"),
         Column("parsed", "boolean", description="whether math-verify parsed the answer")),
        sample="id", repeat="sample")

    def test_samples(self, instance: Instance) -> tuple[str, ...]:
        return tuple(problem.id for problem in instance.inputs.problems)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "evaluation", "the problem set is the dataset's arguments")

    def instance(self, data: ProblemSet, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data, truth=tuple(problem.id for problem in data.problems))

    tiny_instance_is_slow = True  # its method's tiny student is pre-trained (into the model cache) first

    def tiny_instance(self, seed: int) -> Instance:
        """Four generated in-distribution problems."""
        return self.instance(generated("id", count=4, seed=seed), {}, seed)

    def hide_test_labels(self, inputs: ProblemSet, rng: Any) -> ProblemSet:
        """Random numbers for the gold answers, no solutions: a model answers from the questions alone."""
        problems = tuple(dataclasses.replace(p, answer=str(rng.integers(10**6)), solution="") for p in inputs.problems)
        return dataclasses.replace(inputs, problems=problems)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, EvaluationOutput):
            raise TypeError(f"an evaluation method returns EvaluationOutput, got {type(output).__name__}")
        return predictions_table(instance.inputs.problems, output)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        # The table is checked: every problem has its rows. `truth` lists problem ids, repeated where the
        # bootstrap drew a problem twice: each draw is a unit.
        draws = pd.DataFrame({"draw": range(len(instance.truth)), "id": list(instance.truth)})
        table = draws.merge(predictions, on="id", how="left", validate="many_to_many")
        return {key: metric(table) for key, metric in metrics.items()}

    def resample(self, instance: Instance, rng: Any) -> Instance:
        """Problems drawn with replacement (all k samples of a problem move together)."""
        ids = instance.truth
        return Instance(instance.inputs, tuple(ids[i] for i in rng.integers(0, len(ids), len(ids))))
