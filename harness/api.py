"""The Python API: `harness.run(suite)` does what `harness run` does and returns a DataFrame."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.results import records_frame
from harness.runner import RunOptions, run_suite
from harness.store import DEFAULT_STORE, Store


def run(
    suite_path: str | Path,
    *,
    store: str | Path = DEFAULT_STORE,
    executor: str = "local",
    jobs: int = 1,
    force: bool = False,
    data_root: str | Path | None = None,
    plugins: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Run the suite (resuming from the store) and return one row per planned run."""
    options = RunOptions(store=Path(store), executor=executor, jobs=jobs, force=force,
                         data_root=Path(data_root) if data_root else None, plugins=plugins, live_progress=False)
    outcome = run_suite(suite_path, options)
    with Store(store) as db:
        return records_frame(db.planned_records(outcome.planned))
