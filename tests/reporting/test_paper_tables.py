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


def test_tables_per_dataset_keep_the_reports_order_and_drop_a_metric_no_method_has():
    cells = pd.DataFrame([
        _row(0.9, 0.8, 1.0, 6, method="ours", dataset="a", metric="acc"),
        _row(math.nan, math.nan, math.nan, 0, method="ours", dataset="a", metric="mse"),
        _row(0.7, 0.6, 0.8, 6, method="base", dataset="a", metric="acc"),
        _row(math.nan, math.nan, math.nan, 0, method="base", dataset="a", metric="mse"),
        {"source": "cited", "mean": 0.99, "ci_low": math.nan, "ci_high": math.nan, "n": 0,
         "method": "paper", "dataset": "a", "metric": "acc"},
    ])
    text = tables_per_dataset(cells, ("acc", "mse"), "T-1")
    assert "| method | acc |" in text and "mse" not in text.split("## a")[1]
    assert text.index("| ours | 0.900 ± 0.100 |") < text.index("| base | 0.700 ± 0.100 |")
    assert "paper" not in text
