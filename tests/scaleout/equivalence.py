"""What "the same results" means across executors: identical records but for timing and identity."""
from __future__ import annotations

from typing import Any

from harness.store import Store

# Fields that legitimately differ between two executions of the same run.
VOLATILE = ("run_id", "started_at", "finished_at", "measurements", "environment", "log", "predictions", "error")


def comparable_records(store_path) -> dict[str, dict[str, Any]]:  # noqa: ANN001
    with Store(store_path) as store:
        return {r["run_key"]: {k: v for k, v in r.items() if k not in VOLATILE} for r in store.records()}
