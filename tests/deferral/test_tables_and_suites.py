"""The family's suites from the command line (its tables' per-dataset layout is tested in
tests/reporting/test_paper_tables.py)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

SUITES = Path(__file__).resolve().parents[2] / "suites"


@pytest.mark.slow
def test_the_ci_suite_runs_and_its_claims_are_decided(cli, tmp_path):
    store = tmp_path / "results.sqlite"
    code, _, err = cli("run", str(SUITES / "defer_topk_ci.yaml"), "--store", str(store), "--jobs", "2", plugin=False)
    assert code == 0, err
    with sqlite3.connect(store) as db:
        statuses = [status for status, in db.execute("SELECT status FROM runs")]
    assert len(statuses) == 36 and set(statuses) == {"ok"}
    code, _, err = cli("report", str(SUITES / "defer_topk_ci.yaml"), "--store", str(store), "--out",
                       str(tmp_path / "report"), "--format", "md", plugin=False)
    report = (tmp_path / "report" / "report.md").read_text()
    assert code == 0 and report.count("| supported |") == 3, err
