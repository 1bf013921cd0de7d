"""`harness score`: compute metrics from predictions without running any method.

Two cases: a suite's bring-your-own `predictions:` entries, and stored runs whose
predictions can be re-scored under a changed or added metric (same `exec_key`,
different `run_key`). The re-scored record keeps the original's measurements and
names it in `rescored_from`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.environment import environment
from harness.run_spec import RunSpec
from harness.record import RunRecord, utc_now
from harness.record_files import write_record_file
from harness.run_folders import stored_file
from harness.run_inputs import run_inputs
from harness.store import Store
from harness.worker import execute


@dataclass
class ScoreOutcome:
    scored: list[dict[str, Any]] = field(default_factory=list)  # the new records, as their JSON
    unavailable: list[RunSpec] = field(default_factory=list)  # never run, nothing to re-score


def score_runs(planned: list[RunSpec], store: Store, force: bool = False) -> ScoreOutcome:
    stored = store.stored_statuses(spec.run_key for spec in planned)
    executions = {spec.exec_key for spec in planned}  # any suite's: runs are shared (`harness.suite_runs`)
    by_execution = {r.exec_key: r for r in store.run_records()
                    if r.exec_key in executions and r.status == "ok" and r.predictions}
    outcome = ScoreOutcome()
    for spec in planned:
        if spec.run_key in stored and not force:
            continue
        if spec.predictions_file is not None:
            record = execute(spec, store.artifacts_dir.absolute(), environment())
        elif spec.exec_key in by_execution:
            record = rescore(spec, by_execution[spec.exec_key], store.path)
            write_record_file(record, store.artifacts_dir.absolute())
        else:
            outcome.unavailable.append(spec)
            continue
        store.put(record)
        outcome.scored.append(record.as_json())
    return outcome


def rescore(spec: RunSpec, original: RunRecord, store: Path) -> RunRecord:
    """A new record for `spec` scored from the stored predictions of `original`, a run of the store `store`."""
    assert original.predictions is not None  # only runs with predictions are re-scored (`score_runs`)
    inputs = run_inputs(spec)
    predictions = inputs.checked(pd.read_parquet(stored_file(store, original.predictions)))
    return original.changed(
        run_key=spec.run_key, run_id=spec.run_id, suite=spec.suite,
        metric_names=spec.metrics, metric_versions=spec.metric_versions,
        metrics=inputs.score(predictions), rescored_from=original.run_id, finished_at=utc_now(),
    )
