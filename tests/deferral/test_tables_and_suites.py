"""The paper-layout tables, and the family's suites from the command line."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from methods.deferral.tables import T_L2D_1, layout

SUITES = Path(__file__).resolve().parents[2] / "suites"


def _cell(method: str, dataset: str, metric: str, mean: float) -> dict:
    return {"source": "measured", "method": method, "dataset": dataset, "metric": metric, "mean": mean,
            "n": 10, "ci_low": mean - 0.5, "ci_high": mean + 0.5}


def test_layout_puts_a_datasets_figures_side_by_side_and_drops_a_metric_it_lacks():
    cells = pd.DataFrame([_cell("topk[k=1]", "digits", "accuracy", 85.0), _cell("topk[k=1]", "digits", "regret", 0.2),
                          _cell("oracle", "digits", "accuracy", 97.0), _cell("oracle", "digits", "regret", 0.0),
                          _cell("topk[k=1]", "diabetes", "mse", 0.5), _cell("topk[k=1]", "diabetes", "accuracy",
                                                                             float("nan")),
                          {**_cell("oracle", "digits", "accuracy", 1.0), "source": "cited"}])
    text = layout(cells, T_L2D_1, "T")
    assert "| method | accuracy | regret |\n|---|---:|---:|\n| topk[k=1] | 85.0 ± 0.5 | 0.200 ± 0.500 |" in text
    assert "| oracle | 97.0 ± 0.5 | 0.000 ± 0.500 |" in text
    assert "## diabetes\n\n| method | mse |\n|---|---:|\n| topk[k=1] | 0.500 ± 0.500 |" in text


@pytest.mark.slow
def test_the_ci_suite_runs_and_its_claims_are_decided(cli, tmp_path):
    store = tmp_path / "results.sqlite"
    code, _, err = cli("run", str(SUITES / "defer_topk_ci.yaml"), "--store", str(store), "--jobs", "2", plugin=False)
    assert code == 0, err
    with sqlite3.connect(store) as db:
        statuses = [status for status, in db.execute("SELECT status FROM runs")]
    assert len(statuses) == 30 and set(statuses) == {"ok"}
    code, _, err = cli("report", str(SUITES / "defer_topk_ci.yaml"), "--store", str(store), "--out",
                       str(tmp_path / "report"), "--format", "md", plugin=False)
    report = (tmp_path / "report" / "report.md").read_text()
    assert code == 0 and report.count("| supported |") == 3, err
