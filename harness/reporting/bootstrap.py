"""Within-run bootstrap stderr: resample one run's test samples, re-score its stored predictions.

This measures the noise of a single test set, not the spread over seeds; reports show it
in its own column.
"""
from __future__ import annotations


import numpy as np
import pandas as pd

from harness.record_json import RecordJson
from harness.run_folders import stored_file
from harness.run_inputs import run_inputs
from harness.run_spec import RunSpec
from harness.store import Store


def within_run_stderr(planned: list[RunSpec], records: list[RecordJson], store: Store,
                      resamples: int) -> dict[str, dict[str, float]]:
    """run_id -> metric -> bootstrap standard error, for runs whose task can resample."""
    specs = {spec.run_key: spec for spec in planned}
    stderr: dict[str, dict[str, float]] = {}
    for record in records:
        spec = specs.get(record["run_key"])
        named = record.get("predictions")
        if spec is None or record["status"] != "ok" or not named:
            continue
        inputs = run_inputs(spec)
        predictions = inputs.checked(pd.read_parquet(stored_file(store.path, named)))
        rng = np.random.default_rng(spec.seed)
        draws = []
        for _ in range(resamples):
            sample = inputs.task.resample(inputs.instance, rng)
            if sample is None:
                break
            draws.append(inputs.score(predictions, sample))
        if len(draws) > 1:
            stderr[record["run_id"]] = {m: float(np.nanstd([d[m] for d in draws], ddof=1)) for m in inputs.metrics}
    return stderr
