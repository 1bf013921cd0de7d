"""The cells and per-dataset layout the families' paper-style tables share (harness.reporting.paper_tables)."""
from __future__ import annotations

import math

import pandas as pd

from harness.reporting.paper_tables import mean_with_interval, tables_per_dataset


def _row(mean: float, low: float, high: float, n: int, **extra) -> dict:
    return {"source": "measured", "mean": mean, "ci_low": low, "ci_high": high, "n": n, **extra}


def test_a_cell_reads_mean_and_half_width_with_digits_by_magnitude():
    assert mean_with_interval(pd.Series(_row(0.5, 0.4, 0.6, 6))) == "0.500 ± 0.100"
    assert mean_with_interval(pd.Series(_row(42.0, 40.0, 44.0, 6))) == "42.0 ± 2.0"
    assert mean_with_interval(pd.Series(_row(0.5, 0.4, 0.6, 6)), digits=1) == "0.5 ± 0.1"


def test_one_seed_shows_its_mean_alone_and_no_seed_a_dash():
    assert mean_with_interval(pd.Series(_row(0.25, math.nan, math.nan, 1))) == "0.250"
    assert mean_with_interval(pd.Series(_row(math.nan, math.nan, math.nan, 0))) == "—"


def _cell(method: str, dataset: str, metric: str, mean: float) -> dict:
    return {"method": method, "dataset": dataset, "metric": metric, **_row(mean, mean - 0.5, mean + 0.5, 10)}


def test_a_datasets_figures_sit_side_by_side_in_the_reports_order_without_a_metric_it_lacks():
    cells = pd.DataFrame([_cell("topk[k=1]", "digits", "accuracy", 85.0), _cell("topk[k=1]", "digits", "regret", 0.2),
                          _cell("oracle", "digits", "accuracy", 97.0), _cell("oracle", "digits", "regret", 0.0),
                          _cell("topk[k=1]", "diabetes", "mse", 0.5),
                          _cell("topk[k=1]", "diabetes", "accuracy", math.nan),
                          {**_cell("oracle", "digits", "accuracy", 1.0), "source": "cited"}])
    text = tables_per_dataset(cells, ("accuracy", "mse", "regret"), "T")
    assert "| method | accuracy | regret |\n|---|---:|---:|\n| topk[k=1] | 85.0 ± 0.5 | 0.200 ± 0.500 |" in text
    assert "| oracle | 97.0 ± 0.5 | 0.000 ± 0.500 |" in text
    assert "## diabetes\n\n| method | mse |\n|---|---:|\n| topk[k=1] | 0.500 ± 0.500 |" in text
