"""What "the same results" means across executors: identical records but for timing and identity;
and the suites every executor is checked on."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.store import Store

# Fields that legitimately differ between two executions of the same run.
VOLATILE = ("run_id", "started_at", "finished_at", "measurements", "environment", "log", "predictions", "error")


def comparable_records(store_path) -> dict[str, dict[str, Any]]:  # noqa: ANN001
    with Store(store_path) as store:
        return {r["run_key"]: {k: v for k, v in r.items() if k not in VOLATILE} for r in store.records()}


QUICKSTART = Path(__file__).resolve().parents[2] / "suites" / "quickstart.yaml"

# Two seeds of good runs, a run that kills its own worker, and one that raises.
MIXED = """\
schema_version: 1
suite: mixed
task: toy.sign
defaults: {seeds: [0, 1], timeout: 20s}
datasets: {easy: {loader: numbers, args: {shift: 1.0}}}
metrics: [accuracy]
methods:
  noisy: {impl: threshold, params: {noise: [0.5, 1.0]}}
  killed: {impl: selfkill}
  fails: {impl: fail}
"""
MIXED_STATUSES = {"noisy[noise=0.5]": "ok", "noisy[noise=1.0]": "ok", "killed": "crashed", "fails": "failed"}
