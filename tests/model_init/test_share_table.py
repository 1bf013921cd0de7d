"""The T-MASA-1 share table: mean ± t interval over seeds, seeds that never reached a threshold counted apart,
and the paper's cited figure beside the measured ones."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from methods.model_init.share_table import CITED, cell, layout


def test_a_cell_is_the_mean_and_the_t_interval_and_counts_seeds_that_never_reached():
    # mean 2, sd 1, n 3: t(0.975, 2) = 4.303, half-width 4.303 / sqrt(3) = 2.484
    assert cell(pd.Series([1.0, 2.0, 3.0]), "{:.3f}") == "2.000 ± 2.484"
    assert cell(pd.Series([10.0, 30.0, math.inf]), "{:.0f}") == "20 ± 127 (1 never)"
    assert cell(pd.Series([math.inf, math.inf]), "{:.0f}") == "never (2)"
    assert cell(pd.Series([math.nan, 4.0, math.nan]), "{:.0f}") == "4 ± 0" and cell(pd.Series([math.nan]), "") == "—"


def test_the_layout_has_a_row_per_initialiser_and_the_cited_figure():
    runs = pd.DataFrame({"status": "ok", "seed": [0, 1, 0, 1], "dataset": "s1",
                         "method": ["masa", "masa", "random", "random"], "metric.source_share": [0.9, 0.8, 0.5, 0.7],
                         "metric.accuracy": [0.6, 0.5, 0.3, 0.4]})
    text = layout(runs)
    assert CITED in text and "| `masa` | 2 |" in text and "| `random` | 2 |" in text
    assert text.index("`random`") < text.index("`masa`")  # the spec's row order: baselines, then MASA
    assert "85.0% ±" in text and "—" in text  # a metric the runs lack is a dash, not a number
    twice = layout(pd.concat([runs, runs.assign(**{"metric.source_share": float("nan")})]))
    assert "| `masa` | 2 |" in twice and "85.0% ±" in twice  # a run both suites hold counts once
    with pytest.raises(KeyError):
        layout(runs.drop(columns="dataset"))
    assert "The sources" not in text  # runs without the source's figures have no source table


def test_each_source_has_a_row_with_its_floor_accuracy_and_smallest_lead():
    runs = pd.DataFrame({"status": "ok", "seed": [0, 0, 1], "dataset": "s1", "method": ["masa", "random", "masa"],
                         "metric.majority_floor": [0.3, 0.3, 0.4], "metric.source_accuracy": [0.9, 0.9, 0.8],
                         "metric.source_min_lead": [0.25, 0.25, 0.12]})
    text = layout(runs)
    assert "| s1 | 0 | 0.300 | 0.900 | 0.250 |" in text and "| s1 | 1 | 0.400 | 0.800 | 0.120 |" in text
    with pytest.raises(ValueError, match="s1 seed 0: the runs disagree on their source's source_accuracy"):
        layout(runs.assign(**{"metric.source_accuracy": [0.9, 0.8, 0.8]}))
