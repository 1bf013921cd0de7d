"""Seed bands of learning curves: the mean and 95% interval over seeds, aligned or interpolated."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from harness.curves import Curve
from harness.reporting.curve_bands import curve_panels, seed_band


def test_seeds_on_the_same_steps_give_their_mean_and_t_interval_per_step():
    seeds = [Curve.of("v", [1, 2, 3], values) for values in ([1.0, 2.0, 3.0], [2.0, 4.0, 3.0], [3.0, 3.0, 3.0])]
    band = seed_band("m", seeds)
    assert band.steps == (1.0, 2.0, 3.0) and band.seeds == 3 and not band.interpolated
    assert band.mean == pytest.approx((2.0, 3.0, 3.0))
    half = stats.t.ppf(0.975, 2) * np.std([1.0, 2.0, 3.0], ddof=1) / math.sqrt(3)
    assert band.low[0] == pytest.approx(2.0 - half) and band.high[0] == pytest.approx(2.0 + half)
    assert band.low[2] == band.high[2] == 3.0  # no spread, no interval width


def test_seeds_on_different_steps_are_interpolated_onto_the_union_within_their_common_range():
    seeds = [Curve.of("v", [0, 2, 4], [0.0, 2.0, 4.0]), Curve.of("v", [1, 3, 5], [10.0, 30.0, 50.0])]
    band = seed_band("m", seeds)
    assert band.interpolated
    assert band.steps == (1.0, 2.0, 3.0, 4.0)  # never extrapolated beyond 1 .. 4
    assert band.mean == pytest.approx(((1 + 10) / 2, (2 + 20) / 2, (3 + 30) / 2, (4 + 40) / 2))


def test_one_seed_has_a_mean_and_no_interval():
    band = seed_band("m", [Curve.of("v", [1, 2], [0.5, 0.7])])
    assert band.mean == (0.5, 0.7) and all(math.isnan(x) for x in band.low + band.high)


def test_panels_group_ok_runs_by_curve_and_dataset_then_method():
    curve = Curve.of("v", [1], [1.0])
    records = [{"run_id": "a", "status": "ok", "dataset": "d", "method": "m"},
               {"run_id": "b", "status": "failed", "dataset": "d", "method": "m"},
               {"run_id": "c", "status": "ok", "dataset": "e", "method": "n"}]
    panels = curve_panels(records, {"a": {"v": curve}, "b": {"v": curve}, "c": {"v": curve, "w": curve}})
    assert panels == {("v", "d"): {"m": [curve]}, ("v", "e"): {"n": [curve]}, ("w", "e"): {"n": [curve]}}
