"""Runs are shared between suites: a run two suites plan alike is executed once, and `plan`, `export`
`report`, `compare` and `ci` of either suite all count it as that suite's run."""
from __future__ import annotations

import pandas as pd

from tests.conftest import TOY_SUITE

NARROWER = TOY_SUITE.replace("suite: toy", "suite: toy_subset").replace("t: [0.0, 0.5]", "t: [0.0]")


def test_a_suite_whose_runs_another_suite_stored_plans_exports_and_reports_them(cli, write_suite, store, tmp_path):
    wider, narrower = write_suite(), write_suite(NARROWER, "subset.yaml")
    assert cli("run", str(wider), "--store", str(store), "--executor", "inline")[0] == 0

    code, out, _ = cli("plan", str(narrower), "--store", str(store))
    assert code == 0 and "2 runs, 2 stored, 0 to run" in out
    code, out, _ = cli("run", str(narrower), "--store", str(store), "--executor", "inline")
    assert code == 0 and "0 runs executed" in out

    export = tmp_path / "subset.csv"
    code, out, _ = cli("export", "--store", str(store), "--suite", str(narrower), "--out", str(export))
    assert code == 0 and "wrote 2 runs" in out
    frame = pd.read_csv(export)
    assert set(frame["suite"]) == {"toy_subset"} and set(frame["method"]) == {"thr"}  # labelled as it plans them

    code, out, _ = cli("report", str(narrower), "--store", str(store), "--out", str(tmp_path / "report"),
                       "--format", "csv")
    assert code == 0 and "(2 runs)" in out
    assert sorted(pd.read_csv(tmp_path / "report" / "runs.csv")["run_id"]) == sorted(frame["run_id"])


def test_compare_and_ci_of_a_suite_find_the_runs_another_suite_stored(cli, write_suite, store, tmp_path):
    wider, narrower = write_suite(), write_suite(NARROWER, "subset.yaml")
    assert cli("run", str(wider), "--store", str(store), "--executor", "inline")[0] == 0

    code, out, _ = cli("compare", str(store), str(store), "--suite", str(narrower))
    assert code == 0 and "1 unchanged" in out and "100 ± 0 (n=2)" in out
    code, _, err = cli("compare", str(store), str(store), "--suite-name", "toy_subset")  # by the stored name
    assert code == 3 and "no runs of suite 'toy_subset'" in err and "--suite FILE" in err
    code, out, _ = cli("ci", str(narrower), "--baseline", str(store), "--store", str(store))
    assert code == 0 and "0 runs executed" in out and "1 unchanged" in out and "100 ± 0 (n=2)" in out


def test_export_by_name_selects_the_runs_executed_under_that_name(cli, write_suite, store, tmp_path):
    assert cli("run", str(write_suite()), "--store", str(store), "--executor", "inline")[0] == 0
    code, out, _ = cli("export", "--store", str(store), "--suite", "toy", "--out", str(tmp_path / "toy.csv"))
    assert code == 0 and "wrote 4 runs" in out


def test_score_rescores_predictions_another_suite_stored(cli, write_suite, store):
    from harness.registry import metrics

    if "toy.accuracy_again" not in metrics.names():
        metrics.add("toy.accuracy_again", metrics.get("toy.accuracy"), "the same metric under a second name")
    assert cli("run", str(write_suite()), "--store", str(store), "--executor", "inline")[0] == 0
    rescoring = NARROWER.replace("metrics: [accuracy]", "metrics: [accuracy, accuracy_again]")
    code, out, _ = cli("score", str(write_suite(rescoring, "rescoring.yaml")), "--store", str(store))
    assert code == 0 and "2 runs scored" in out
