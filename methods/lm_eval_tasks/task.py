"""The contract `lm_eval_tasks.evaluation`: a model (the method) runs a selection of lm-eval tasks (the dataset).

The method returns lm-eval's own output: per task and filter its metrics with their stderr, and every
document's responses and per-sample scores. The predictions table holds one row per (task, document,
filter, metric): `task`, `doc_id`, `filter`, `metric`, `value` (lm-eval's per-sample score), `target`,
`response` (the model's raw responses, JSON) and `filtered` (after the filter, JSON). Scoring reads that
table alone, so `harness score` can re-score stored generations.
"""
from __future__ import annotations

import inspect
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.registry import datasets
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.lm_eval_tasks.data import TINY_TASKS, TaskSelection, check_selection

COLUMNS = ("task", "doc_id", "filter", "metric", "value", "target", "response", "filtered")


@dataclass(frozen=True)
class LmEvalOutput:
    """What lm-eval returned: `results` per task (groups too) keyed "<metric>,<filter>", and `samples`."""

    results: dict[str, dict[str, float | None]]
    samples: list[dict[str, Any]] = field(default_factory=list)


class LmEvalEvaluation(Task):
    """One selection of lm-eval tasks per dataset; the seed is lm-eval's sampling seed (the method's)."""

    # One row per (task, filter, metric, document). The documents a selection holds are lm-eval's to list, so
    # the engine checks the kinds and that no document is scored twice, not that every one is there.
    predictions_schema = PredictionsSchema(
        (Column("task", "text"), Column("doc_id", "integer"), Column("filter", "text"), Column("metric", "text"),
         Column("value", "number", may_be_empty=True,
                description="lm-eval's per-sample score; empty where lm-eval aggregates at corpus level")),
        sample="doc_id", per=("task", "filter", "metric"), every_sample=False)

    tiny_instance_is_slow = True  # the method loads a model and runs lm-eval

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "lm_eval_tasks.evaluation", "shots and limits are dataset arguments")

    def check_dataset(self, loader: str, args: Mapping[str, Any]) -> None:
        """Build the selection with the registered loader (it reads nothing) and check it against lm-eval."""
        build = datasets.get(loader)
        try:
            chosen = build(**args)
        except TypeError as exc:  # an argument the loader does not take
            takes = ", ".join(inspect.signature(build).parameters)
            raise DataError(str(exc), field="args", hint=f"{loader} takes {takes}.") from None
        check_selection(chosen)

    def instance(self, data: TaskSelection, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data, truth=data)

    def predictions(self, instance: Instance, output: LmEvalOutput) -> pd.DataFrame:
        rows = [{"task": s["task"], "doc_id": int(s["doc_id"]), "filter": s["filter"], "metric": metric,
                 "value": _number(value), "target": str(s["target"]),
                 "response": json.dumps(s["resps"], default=str), "filtered": json.dumps(s["filtered"], default=str)}
                for s in output.samples for metric, value in s["metrics"].items()]
        return pd.DataFrame(rows, columns=list(COLUMNS))

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        return {name: metric(predictions, instance.truth) for name, metric in metrics.items()}

    def tiny_instance(self, seed: int) -> Instance:
        """Eight documents of the committed tiny_sst2 task."""
        selection = TaskSelection(("tiny_sst2",), TINY_TASKS, limit=8)
        return Instance(inputs=selection, truth=selection)


def _number(value: Any) -> float:
    """A per-sample score as a float; NaN for the tuples lm-eval keeps for corpus-level metrics (BLEU, F1) and for
    an infinite one (a log-likelihood of -inf), which no mean of the table could use."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return float("nan")
    return number if math.isfinite(number) else float("nan")
