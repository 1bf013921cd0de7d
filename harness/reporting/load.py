"""Select a suite's runs from the store and build its report model."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.dataset_files import data_root
from harness.errors import DataError, HarnessError
from harness.planner import plan
from harness.reporting.model import ReportData, build_report
from harness.store import Store
from harness.suite import Suite, load_suite


def load_report(suite_path: str | Path, store_path: str | Path, root: str | Path | None = None,
                interval: str = "t", bootstrap_resamples: int = 0) -> ReportData:
    """The report of a suite from the store alone; nothing runs.

    Runs are matched by run key when the suite's data files are at hand; otherwise by
    (method, dataset, seed) name, newest first, and the report's provenance says so.
    """
    suite, source = load_suite(suite_path)
    with Store(store_path, create=False) as store:
        try:
            planned = plan(suite, source, data_root(root))
        except DataError:
            if bootstrap_resamples:
                raise
            planned = []
            records, methods = _by_name(suite, list(store.records(suite=suite.suite)))
            selection = "names (data files absent, run keys unchecked)"
        else:
            records = store.planned_records(planned)
            methods = list(dict.fromkeys(r.method for r in planned))
            selection = "run keys"
        bootstrap = None
        if bootstrap_resamples:
            from harness.reporting.bootstrap import within_run_stderr

            bootstrap = within_run_stderr(planned, records, store, bootstrap_resamples)
    if not records:
        raise HarnessError(f"the store {store_path} holds no runs of suite '{suite.suite}'",
                           hint=f"Run it first: harness run {suite_path} --store {store_path}")
    return build_report(suite, Path(suite_path), records, methods, interval, bootstrap, selection)


def _by_name(suite: Suite, stored: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    newest: dict[tuple[str, str, int], dict[str, Any]] = {}
    for record in sorted(stored, key=lambda r: r.get("finished_at") or ""):
        if record["dataset"] in suite.datasets and record.get("method_entry") in suite.methods:
            newest[(record["method"], record["dataset"], record["seed"])] = record
    records = list(newest.values())
    order = {name: i for i, name in enumerate(suite.methods)}
    methods = sorted({(order[r["method_entry"]], r["method"]) for r in records})
    return records, [method for _, method in methods]
