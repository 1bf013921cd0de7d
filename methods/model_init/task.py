"""The contract `model_init.pretrain`: initialise a student from the source, train it for a fixed budget, and
report its learning curve, its answers to the test prompts and what it inherited.

A method sees the corpus with the test lines' last words blanked, the source's recipe (trained and cached on
first use) and the student's shape; it returns an `InitResult`. The predictions table holds one row per test
answer (`answer`), per curve point (`val_loss`) and per figure (`figure`: perplexity, spectral distance, CKA,
parameters), so stored runs are re-scored by the same code."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.model_init.measures import majority_floor, task_leads
from methods.model_init.metrics import ScoredRun
from methods.model_init.models import Shape, SourceConfig
from methods.model_init.text import TextCorpus


SCORED = "scored:"  # the figure-name prefix of a task type the source learned (the dataset's `gate`), which is scored


@dataclass(frozen=True)
class InitInputs:
    """The corpus (test answers blanked), the source recipe (`prepare`'s options), the student's shape, the
    dev lines the learning curve is measured on and the scoring gate."""

    corpus: TextCorpus
    source: Mapping[str, Any]
    student: Shape
    eval_lines: int
    gate: float  # the dev lead over a task type's majority floor that makes it the source's (scored)

    def source_dir(self) -> Path:
        """The source's folder: trained on first use and cached, or the recipe's own `path`."""
        from methods.model_init.models import prepare

        options = dict(self.source)
        if "path" in options:
            return Path(str(options["path"])).expanduser()
        if "config" in options:
            options["config"] = SourceConfig(**options["config"])
        return prepare(self.corpus, **options)


@dataclass(frozen=True)
class InitResult:
    """A trained student's answers (by test id), its dev-loss curve, its figures and its source's answers to the
    same prompts (the share-of-source metrics' denominator)."""

    answers: Mapping[str, str]
    curve_steps: tuple[float, ...]
    curve_losses: tuple[float, ...]
    figures: Mapping[str, float] = field(default_factory=dict)
    source_answers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Truth:
    answers: Mapping[str, str]
    threshold: float
    tasks: Mapping[str, str] = field(default_factory=dict)  # test id -> task type (the floor's grouping)


class Pretrain(Task):
    """A generated corpus (the same for every seed; the seed initialises and trains the student, and with a
    source seed "run" it also picks the source) or yours."""

    # One table of four kinds of row, unique per (kind, key, step): a test line's answer (key: its id), the
    # source's answer to it (key: its id), a point of the dev-loss curve (key empty) and a figure (key: its
    # name). Its kinds mix test samples with other rows, so the task names no test samples and `scored_run`
    # checks that every test line is answered once.
    predictions_schema = PredictionsSchema(
        (Column("kind", "text", description="answer, source_answer, val_loss or figure"),
         Column("key", "text", may_be_empty=True, description="the test line's id, empty, or the figure's name"),
         Column("step", "number", description="the curve point's training step (0 otherwise)"),
         Column("value", "number", description="the dev loss or the figure (0 for an answer)"),
         Column("answer", "text", may_be_empty=True, description="the predicted last word (empty otherwise)")),
        sample="key", per=("kind",), repeat="step")

    tiny_instance_is_slow = True  # it pre-trains a tiny source (seconds)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "model_init.pretrain", "the corpus's splits are the loader's")

    def instance(self, data: Any, split: Mapping[str, Any], seed: int) -> Instance:
        corpus: TextCorpus = data.corpus
        blind = replace(corpus, test=corpus.prompts())
        source = dict(data.source)
        sources = source.pop("sources", None)
        if source.get("seed") == "run":  # a source per run seed (or per seed modulo `sources`): seeds vary it
            source["seed"] = seed % sources if sources else seed
        inputs = InitInputs(blind, source, data.student, data.eval_lines, data.gate)
        return Instance(inputs, Truth(dict(zip(corpus.test_ids, corpus.answers(), strict=True)), data.threshold,
                                      dict(zip(corpus.test_ids, corpus.test_tasks, strict=True))))

    def tiny_instance(self, seed: int) -> Instance:
        """Ten training questions per domain, a one-layer d = 16 source trained 20 steps, a d = 8 student."""
        from methods.model_init.data import generated

        source = {"config": {"hidden": 16, "layers": 2, "heads": 2, "ffn": 32, "steps": 20, "batch_size": 8}}
        data = generated(corpus={"train_per_domain": 10, "dev_per_domain": 4, "test_per_domain": 4,
                                 "ood_per_domain": 2, "entities": 10},
                         source=source, student={"hidden": 8, "layers": 1, "heads": 1, "ffn": 16}, threshold=4.0,
                         eval_lines=8)
        return self.instance(data, {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, InitResult):
            raise ValueError(f"a model_init method returns an InitResult, got {type(output).__name__}")
        rows = [("answer", key, 0.0, 0.0, word) for key, word in output.answers.items()]
        rows += [("source_answer", key, 0.0, 0.0, word) for key, word in output.source_answers.items()]
        rows += [("val_loss", "", s, v, "") for s, v in zip(output.curve_steps, output.curve_losses, strict=True)]
        rows += [("figure", name, 0.0, value, "") for name, value in output.figures.items()]
        return pd.DataFrame(rows, columns=[c.name for c in self.predictions_schema.columns])

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        run = scored_run(instance.truth, predictions)
        return {key: metric(run) for key, metric in metrics.items()}


def scored_run(truth: Truth, predictions: pd.DataFrame) -> ScoredRun:
    """The predictions (of the task's schema) checked against the truth: every test line answered once (by the
    student; by the source too, where its answers are given), a curve of increasing steps. Accuracy, the source's
    and the floor are over the test lines of the task types the run's `scored:<type>` figures name (all lines
    when it names none)."""
    answers = _answers(predictions, "answer", truth)
    figures = predictions[predictions["kind"] == "figure"]
    learned = {str(key)[len(SCORED):] for key in figures["key"] if str(key).startswith(SCORED)}
    keys = [key for key in truth.answers if not learned or truth.tasks.get(key, "text") in learned]
    sources = predictions[predictions["kind"] == "source_answer"]
    theirs = _answers(predictions, "source_answer", truth) if len(sources) else None
    source_accuracy = _accuracy(theirs, truth, keys) if theirs is not None else math.nan
    source_lead = _smallest_lead(theirs, truth, keys) if theirs is not None else math.nan
    curve = predictions[predictions["kind"] == "val_loss"]
    if curve.empty or not curve["step"].is_monotonic_increasing:
        raise ValueError("the val_loss rows must hold a curve of increasing steps")
    return ScoredRun(_accuracy(answers, truth, keys), curve["step"].to_numpy(float), curve["value"].to_numpy(float),
                     dict(zip(figures["key"], figures["value"].astype(float), strict=True)), truth.threshold,
                     source_accuracy, majority_floor([truth.answers[k] for k in keys],
                                                     [truth.tasks.get(k, "text") for k in keys]), source_lead)


def _answers(predictions: pd.DataFrame, kind: str, truth: Truth) -> pd.DataFrame:
    rows = predictions[predictions["kind"] == kind]
    if len(rows) != len(truth.answers) or set(rows["key"]) != set(truth.answers):
        raise ValueError(f"the predictions' {kind} rows must answer each of the {len(truth.answers)} test lines once")
    return rows


def _smallest_lead(rows: pd.DataFrame, truth: Truth, keys: list[str]) -> float:
    """The source's smallest lead over a scored task type's majority floor on its test lines: a share of the
    source's performance means something only on types the source is well above its floor on."""
    given = dict(zip(rows["key"], rows["answer"], strict=True))
    return min(task_leads([given[k] for k in keys], [truth.answers[k] for k in keys],
                          [truth.tasks.get(k, "text") for k in keys]).values())


def _accuracy(rows: pd.DataFrame, truth: Truth, keys: list[str]) -> float:
    """The share of the test lines `keys` (the scored task types') whose answer in `rows` is right."""
    given = dict(zip(rows["key"], rows["answer"], strict=True))
    return sum(truth.answers[k] == given[k] for k in keys) / len(keys)
