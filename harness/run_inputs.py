"""What a run is scored on, built from its `RunSpec` in one place: its dataset, task instance and metrics.

The worker, `harness score` (re-scoring stored predictions) and the report's within-run bootstrap all
build them here, so a re-score or a resample sees exactly the instance and metrics the run was scored with.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.contracts import Instance, Metric, Task
from harness.run_spec import RunSpec
from harness.registry import datasets, metrics, tasks

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

_DATA_CACHE: OrderedDict[str, Any] = OrderedDict()
_DATA_CACHE_SIZE = 2


@dataclass(frozen=True)
class RunInputs:
    task: Task
    instance: Instance
    metrics: dict[str, Metric]  # suite metric name -> registered metric

    def checked(self, predictions: "pd.DataFrame", *, file: Path | None = None,
                lines: "Sequence[int] | None" = None) -> "pd.DataFrame":
        """`Task.checked` on the run's instance: every table passes here once before it is scored."""
        return self.task.checked(self.instance, predictions, file=file, lines=lines)

    def score(self, predictions: "pd.DataFrame", instance: Instance | None = None) -> dict[str, float]:
        """The run's metrics of `predictions` (a `checked` table) on its instance (or on `instance`, a
        resample of it)."""
        return self.task.score(self.instance if instance is None else instance, predictions, self.metrics)


def run_inputs(spec: RunSpec) -> RunInputs:
    task = tasks.get(spec.task)()
    instance = task.instance(load_dataset(spec), spec.dataset.split, spec.seed)
    return RunInputs(task, instance, {name: metrics.get(full) for name, full in spec.metrics.items()})


def load_dataset(spec: RunSpec) -> Any:
    """The run's dataset, cached per fingerprint: seeds of one dataset load it once per worker."""
    key = spec.dataset.fingerprint
    if key not in _DATA_CACHE:
        _DATA_CACHE[key] = datasets.get(spec.dataset.loader)(**spec.dataset.load_args)
        while len(_DATA_CACHE) > _DATA_CACHE_SIZE:
            _DATA_CACHE.popitem(last=False)
    _DATA_CACHE.move_to_end(key)
    return _DATA_CACHE[key]
