"""`harness explain`: the runs behind one cell of a suite's report and the arithmetic from them, which must give
the report's own cell.

Read from the committed quickstart export (reports/quickstart/runs.csv: 5 methods x 2 datasets x 3 seeds); its
rendered table (reports/quickstart/table.csv) and scipy's t interval are the references.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.cli import main
from harness.errors import USER_ERROR_EXIT, HarnessError
from harness.explain import NOT_IN_EXPORT, check_name, explain, explanation_text
from harness.reporting.load import load_report
from harness.reporting.model import ReportData
from tests.conftest import REPO

QUICKSTART = REPO / "suites" / "quickstart.yaml"
RUNS = REPO / "reports" / "quickstart" / "runs.csv"
TABLE = REPO / "reports" / "quickstart" / "table.csv"


@pytest.fixture(scope="module")
def quickstart() -> ReportData:
    return load_report(QUICKSTART, "no-store.sqlite", runs_file=RUNS)


def _explain_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["explain", str(QUICKSTART), *args, "--runs", str(RUNS)])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_cell_of_the_committed_table_is_the_cell_explain_arrives_at(quickstart):
    table = pd.read_csv(TABLE)
    measured = table[table["source"] == "measured"]
    assert len(measured) == 5 * 2 * len(quickstart.metrics)
    for row in measured.itertuples():
        metric = explain(quickstart, row.method, row.dataset, [row.metric]).metrics[0]
        where = (row.method, row.dataset, row.metric)
        assert metric.cell.stats.n == row.n and metric.cell.failed_runs == row.failed_runs, where
        assert " ".join(metric.cell.run_ids) == row.run_ids, where
        for field in ("mean", "std", "ci_low", "ci_high"):
            assert getattr(metric.cell.stats, field) == pytest.approx(getattr(row, field), rel=1e-12, nan_ok=True), \
                (where, field)


def test_json_gives_each_run_and_the_arithmetic_scipy_agrees_with(capsys):
    code, out, _ = _explain_cli(capsys, "gcn", "sbm_mixed", "auprc", "--json")
    explained = json.loads(out)
    runs = pd.read_csv(RUNS)
    behind = runs[(runs["method"] == "gcn") & (runs["dataset"] == "sbm_mixed")].sort_values("seed")
    assert code == 0 and [r["run_id"] for r in explained["runs"]] == list(behind["run_id"])
    assert [r["seed"] for r in explained["runs"]] == [0, 1, 2]
    assert {r["git_sha"] for r in explained["runs"]} == set(behind["git_sha"])
    assert {r["hardware_fingerprint"] for r in explained["runs"]} == set(behind["hardware_fingerprint"])
    assert all(r["predictions"] == NOT_IN_EXPORT and r["params"]["hidden"] == 32 for r in explained["runs"])
    [auprc] = explained["metrics"]
    values = list(behind["metric.auprc"])
    low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert auprc["values"] == values and auprc["interval"] == "t"
    assert auprc["mean"] == pytest.approx(np.mean(values), rel=1e-12)
    assert (auprc["ci_low"], auprc["ci_high"]) == pytest.approx((low, high), rel=1e-9)
    row = pd.read_csv(TABLE).query("method == 'gcn' and dataset == 'sbm_mixed' and metric == 'auprc'").iloc[0]
    assert (auprc["mean"], auprc["ci_low"], auprc["ci_high"]) == pytest.approx(
        (row["mean"], row["ci_low"], row["ci_high"]), rel=1e-12)


def test_without_a_metric_every_quality_metric_of_the_suite_is_explained(capsys):
    code, out, _ = _explain_cli(capsys, "rayleigh", "sbm_contextual")
    headings = [line.split(":")[0] for line in out.splitlines() if line.endswith(")") and ": the cell reads" in line]
    assert code == 0 and headings == ["auprc ↑ [%]", "auroc ↑ [%]", "rec_at_k ↑ [%]"]
    assert out.count("95% CI (Student t) = mean ± t(0.975, 2)") == 3


def test_a_failed_run_is_listed_and_counted_but_not_averaged(tmp_path):
    runs = pd.read_csv(RUNS)
    failing = (runs["method"] == "gcn") & (runs["dataset"] == "sbm_mixed") & (runs["seed"] == 1)
    runs.loc[failing, "status"] = "failed"
    runs["error"] = runs["error"].astype(object)
    runs.loc[failing, "error"] = "RuntimeError: the loss went NaN"
    runs.loc[failing, [c for c in runs.columns if c.startswith(("metric.", "measure."))]] = np.nan
    export = tmp_path / "runs.csv"
    runs.to_csv(export, index=False)
    data = load_report(QUICKSTART, tmp_path / "no-store.sqlite", runs_file=export)
    explained = explain(data, "gcn", "sbm_mixed", ["auprc"])
    assert [(run.seed, run.status) for run in explained.runs] == [(0, "ok"), (1, "failed"), (2, "ok")]
    [auprc] = explained.metrics
    kept = runs[(runs["method"] == "gcn") & (runs["dataset"] == "sbm_mixed") & ~failing]["metric.auprc"]
    assert auprc.cell.stats.n == 2 and auprc.cell.failed_runs == 1 and auprc.cell.failed_seeds == (1,)
    assert auprc.cell.stats.mean == pytest.approx(kept.mean(), rel=1e-12)
    assert auprc.text.endswith("(1 failed)")
    text = explanation_text(explained)
    failed_id = runs.loc[failing, "run_id"].item()
    assert "3 runs (2 ok, 1 failed)" in text and "error RuntimeError: the loss went NaN" in text
    assert f"seed 1  run {failed_id}  failed: counted, not averaged" in text
    assert f"mean = {math.fsum(kept):.6g} / 2 = " in text


@pytest.mark.parametrize(("cell", "wrong", "meant"), [
    (("gcm", "sbm_mixed", "auprc"), "no method 'gcm'", "Did you mean 'gcn'?"),
    (("gcn", "sbm_mix", "auprc"), "no dataset 'sbm_mix'", "Did you mean 'sbm_mixed'?"),
    (("gcn", "sbm_mixed", "auprcc"), "no metric 'auprcc'", "Did you mean 'auprc'"),
])
def test_a_wrong_name_is_a_user_error_with_the_names_it_may_mean(capsys, cell, wrong, meant):
    code, out, err = _explain_cli(capsys, *cell)
    assert code == USER_ERROR_EXIT and not out
    assert wrong in err and meant in err and "Traceback" not in err


def test_an_unknown_name_lists_every_name_the_report_has(capsys):
    code, _, err = _explain_cli(capsys, "transformer", "sbm_mixed")
    assert code == USER_ERROR_EXIT and "Its methods: rayleigh, logreg, mlp, gcn, graphsage." in err


def test_a_grids_entry_name_points_to_its_variants():
    with pytest.raises(HarnessError, match=r"Did you mean 'cut\[t=0.2\]' or 'cut\[t=0.4\]'\?"):
        check_name("method", "cut", ("cut[t=0.2]", "cut[t=0.4]", "vote"))


def test_a_store_names_each_runs_predictions_file(quickstart):
    """An export has no predictions; a store's record names its file relative to the store's folder."""
    store = Path("/results/results.sqlite")
    named = {r["run_id"]: "results-runs/quickstart/predictions/x.parquet" for r in quickstart.records}
    data = ReportData(**{**quickstart.__dict__,
                         "records": tuple({**r, "predictions": named[r["run_id"]]} for r in quickstart.records)})
    runs = explain(data, "mlp", "sbm_mixed", ["auprc"], store=store).runs
    assert {run.predictions for run in runs} == {"/results/results-runs/quickstart/predictions/x.parquet"}
