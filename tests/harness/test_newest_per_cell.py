"""Of several records of one (suite, method, dataset, seed), reports and comparisons count the newest."""
from __future__ import annotations

import pandas as pd

from harness.comparison.sources import load_results, side_of_records
from harness.suite_runs import newest_per_cell


def _run(run_id: str, finished_at: str | None, seed: int = 0, suite: str = "s") -> dict:
    return {"run_id": run_id, "suite": suite, "method": "m", "dataset": "d", "seed": seed, "status": "ok",
            "finished_at": finished_at, "metric_names": {}}


def test_the_latest_finished_record_of_each_cell_is_kept_in_the_order_given():
    rows = [_run("new", "2026-02-01"), _run("other-seed", "2026-01-01", seed=1), _run("old", "2026-01-01"),
            _run("other-suite", "2025-01-01", suite="t")]
    assert [r["run_id"] for r in newest_per_cell(rows)] == ["new", "other-seed", "other-suite"]


def test_of_records_that_finished_alike_or_undated_the_later_given_wins():
    assert [r["run_id"] for r in newest_per_cell([_run("a", "2026-01-01"), _run("b", "2026-01-01")])] == ["b"]
    assert [r["run_id"] for r in newest_per_cell([_run("a", None), _run("b", float("nan"))])] == ["b"]
    assert [r["run_id"] for r in newest_per_cell([_run("dated", "2026-01-01"), _run("undated", None)])] == ["dated"]


def test_a_store_side_and_an_export_side_keep_the_same_newest_record(tmp_path):
    rows = [_run("new", "2026-02-01"), _run("old", "2026-01-01")]
    export = tmp_path / "runs.csv"
    pd.DataFrame(rows).assign(metric_names="{}").to_csv(export, index=False)
    assert list(side_of_records(rows, "store")["run_id"]) == ["new"]
    assert list(load_results(str(export))["run_id"]) == ["new"]  # not the last row of the file
