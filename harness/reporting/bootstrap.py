"""Within-run bootstrap stderr: resample one run's test samples, re-score its stored predictions.

This measures the noise of a single test set, not the spread over seeds; reports show it
in its own column.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from harness.planner import RunSpec
from harness.registry import metrics, tasks
from harness.store import Store
from harness.worker import load_dataset


def within_run_stderr(planned: list[RunSpec], records: list[dict[str, Any]], store: Store,
                      resamples: int) -> dict[str, dict[str, float]]:
    """run_id -> metric -> bootstrap standard error, for runs whose task can resample."""
    specs = {spec.run_key: spec for spec in planned}
    stderr: dict[str, dict[str, float]] = {}
    for record in records:
        spec = specs.get(record["run_key"])
        if spec is None or record["status"] != "ok" or not record.get("predictions"):
            continue
        task = tasks.get(spec.task)()
        instance = task.instance(load_dataset(spec), spec.dataset.split, spec.seed)
        predictions = pd.read_parquet(store.path.parent / record["predictions"])
        metric_objects = {name: metrics.get(full) for name, full in spec.metrics.items()}
        rng = np.random.default_rng(spec.seed)
        draws = []
        for _ in range(resamples):
            sample = task.resample(instance, rng)
            if sample is None:
                break
            draws.append(task.score(sample, predictions, metric_objects))
        if len(draws) > 1:
            stderr[record["run_id"]] = {m: float(np.nanstd([d[m] for d in draws], ddof=1)) for m in metric_objects}
    return stderr
