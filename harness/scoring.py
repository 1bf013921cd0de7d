"""`harness score`: compute metrics from predictions without running any method.

Two cases: a suite's bring-your-own `predictions:` entries, and stored runs whose
predictions can be re-scored under a changed or added metric (same `exec_key`,
different `run_key`). The re-scored record keeps the original's measurements and
names it in `rescored_from`.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.environment import environment
from harness.planner import RunSpec
from harness.record import utc_now
from harness.record_files import records_dir, write_record_file
from harness.registry import metrics, tasks
from harness.store import Store
from harness.worker import execute, load_dataset


@dataclass
class ScoreOutcome:
    scored: list[dict[str, Any]] = field(default_factory=list)
    unavailable: list[RunSpec] = field(default_factory=list)  # never run, nothing to re-score


def score_runs(planned: list[RunSpec], store: Store, force: bool = False) -> ScoreOutcome:
    stored = {r["run_key"]: r for r in store.records(r.run_key for r in planned)}
    executions = {spec.exec_key for spec in planned}  # any suite's: runs are shared (`harness.suite_runs`)
    by_execution = {r["exec_key"]: r for r in store.records()
                    if r.get("exec_key") in executions and r["status"] == "ok" and r.get("predictions")}
    outcome = ScoreOutcome()
    for spec in planned:
        if spec.run_key in stored and not force:
            continue
        if spec.predictions_file is not None:
            record = execute(spec, store.artifacts_dir.absolute(), environment())
        elif spec.exec_key in by_execution:
            record = rescore(spec, by_execution[spec.exec_key], store.path.parent)
            write_record_file(record, records_dir(store.artifacts_dir.absolute(), spec.suite))
        else:
            outcome.unavailable.append(spec)
            continue
        store.put(record)
        outcome.scored.append(record)
    return outcome


def rescore(spec: RunSpec, original: dict[str, Any], store_dir: Path) -> dict[str, Any]:
    """A new record for `spec` scored from `original`'s stored predictions."""
    task = tasks.get(spec.task)()
    instance = task.instance(load_dataset(spec), spec.dataset.split, spec.seed)
    predictions = pd.read_parquet(store_dir / original["predictions"])
    metric_objects = {name: metrics.get(full) for name, full in spec.metrics.items()}
    record = copy.deepcopy(original)
    record.update(
        run_key=spec.run_key, run_id=spec.run_id, suite=spec.suite,
        metric_names=spec.metrics, metric_versions=spec.metric_versions,
        metrics=task.score(instance, predictions, metric_objects),
        rescored_from=original["run_id"], finished_at=utc_now(),
    )
    return record
