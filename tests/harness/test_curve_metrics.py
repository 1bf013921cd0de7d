"""Curve metrics: each kind against a hand computation, and a claim or a regression rule gated on one."""
from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from harness.curve_metrics import area_under_curve, derived_value, first_step_reaching, value_at_step
from harness.curves import Curve
from harness.errors import DataError
from harness.suite import CurveMetric
from tests.harness.test_curves import CURVE_PLUGIN

RISING = Curve.of("val", [0, 1, 3], [0.0, 2.0, 4.0], higher_is_better=True)

TWO_LEARNERS = """\
schema_version: 1
suite: learn
task: toy.sign
defaults: {seeds: [0, 1, 2, 3, 4, 5], timeout: 20s}
datasets:
  easy: {loader: numbers, args: {shift: 1.0}}
metrics: [accuracy]
methods:
  fast: {impl: learner, params: {rate: 0.5}}
  slow: {impl: learner, params: {rate: 0.2}}
curve_metrics:
  val_auc: {curve: val_score, kind: auc, higher_is_better: true, start: 1, stop: 5, normalise: true}
  epochs_to_60: {curve: val_score, kind: first_reaching, threshold: 0.6, higher_is_better: true}
  val_at_3: {curve: val_score, kind: at_step, step: 3, higher_is_better: true}
claims:
  - {text: "fast has the larger area under its validation curve", check: {metric: val_auc, better: fast, than: slow}}
  - {text: "slow has the larger area under its validation curve", check: {metric: val_auc, better: slow, than: fast}}
  - {text: "fast reaches 0.6 in fewer epochs", check: {metric: epochs_to_60, better: fast, than: slow}}
  - {text: "slow reaches 0.6 in fewer epochs", check: {metric: epochs_to_60, better: slow, than: fast}}
regression:
  rules: [{metric: val_auc, max_drop: 0.01}]
"""


def test_area_under_curve_is_the_trapezoid_rule_over_the_recorded_range():
    assert area_under_curve(RISING) == pytest.approx(0.5 * 1 * (0 + 2) + 0.5 * 2 * (2 + 4))  # 1 + 6
    assert area_under_curve(RISING, normalise=True) == pytest.approx(7 / 3)


def test_area_under_curve_interpolates_the_ends_of_a_declared_range():
    # from step 0.5 (value 1) to 2 (value 3): 0.5 * (1 + 2) / 2 + 1 * (2 + 3) / 2 = 0.75 + 2.5
    assert area_under_curve(RISING, start=0.5, stop=2) == pytest.approx(3.25)
    assert area_under_curve(RISING, start=0.5, stop=2, normalise=True) == pytest.approx(3.25 / 1.5)
    assert area_under_curve(RISING, start=1, stop=3) == pytest.approx(6.0)


def test_area_under_curve_is_nan_outside_the_recorded_range_or_over_a_nan():
    assert math.isnan(area_under_curve(RISING, start=-1, stop=2))
    assert math.isnan(area_under_curve(RISING, start=1, stop=4))
    assert math.isnan(area_under_curve(Curve.of("one", [2], [1.0])))
    assert math.isnan(area_under_curve(Curve.of("nan", [0, 1, 2], [1.0, math.nan, 1.0])))


def test_value_at_step_interpolates_and_keeps_an_exact_step_exact():
    assert value_at_step(RISING, 2) == pytest.approx(3.0)
    assert value_at_step(RISING, 1) == 2.0
    assert math.isnan(value_at_step(RISING, 3.5))
    beside_a_nan = Curve.of("c", [0, 1, 2], [1.0, 5.0, math.nan])
    assert value_at_step(beside_a_nan, 1) == 5.0


def test_first_step_reaching_respects_the_direction():
    assert first_step_reaching(RISING, 2.0, higher_is_better=True) == 1.0  # reaching means at or above
    assert first_step_reaching(RISING, 1.5, higher_is_better=True) == 1.0
    falling = Curve.of("loss", [10, 20, 30], [3.0, 1.0, 0.5], higher_is_better=False)
    assert first_step_reaching(falling, 1.0, higher_is_better=False) == 20.0  # at or below for a loss
    assert first_step_reaching(falling, 3.5, higher_is_better=False) == 10.0


def test_first_step_reaching_is_infinite_when_never_reached_and_skips_nan():
    assert first_step_reaching(RISING, 5.0, higher_is_better=True) == math.inf
    diverged = Curve.of("loss", [1, 2, 3], [math.nan, math.nan, 0.1], higher_is_better=False)
    assert first_step_reaching(diverged, 1.0, higher_is_better=False) == 3.0
    assert first_step_reaching(Curve.of("x", [1, 2], [math.nan, math.nan]), 0.0, True) == math.inf


def test_a_curve_recorded_in_the_other_direction_than_declared_is_an_error():
    metric = CurveMetric(curve="val", kind="auc", higher_is_better=False)
    with pytest.raises(DataError, match="recorded with higher_is_better=True"):
        derived_value(RISING, "val_auc", metric)
    undirected = Curve.of("val", RISING.steps, RISING.values)
    assert derived_value(undirected, "val_auc", metric) == pytest.approx(7.0)


@pytest.mark.parametrize(("fields", "problem"), [
    ({"kind": "at_step"}, "needs 'step'"),
    ({"kind": "first_reaching"}, "needs 'threshold'"),
    ({"kind": "auc", "threshold": 1.0}, "'threshold' has no meaning for kind 'auc'"),
    ({"kind": "at_step", "step": 3, "normalise": True}, "'normalise' has no meaning"),
    ({"kind": "auc", "start": 5, "stop": 5}, "start 5 must be below stop 5"),
    ({"kind": "median"}, "Input should be 'auc', 'at_step' or 'first_reaching'"),
])
def test_a_curve_metric_declares_what_its_kind_needs_and_nothing_else(fields, problem):
    with pytest.raises(ValidationError, match=problem):
        CurveMetric(curve="val", higher_is_better=True, **fields)


def test_a_step_count_is_lower_is_better_whatever_the_curve_direction():
    assert CurveMetric(curve="v", kind="first_reaching", threshold=1, higher_is_better=True).metric_higher_is_better \
        is False
    assert CurveMetric(curve="v", kind="auc", higher_is_better=False).metric_higher_is_better is False
    assert CurveMetric(curve="v", kind="at_step", step=1, higher_is_better=True).metric_higher_is_better is True


def test_a_curve_metric_cannot_take_a_metric_name(cli, write_suite):
    path = write_suite(TWO_LEARNERS.replace("  val_auc:", "  accuracy:"))
    code, _, err = cli("validate", str(path), "--plugin", CURVE_PLUGIN)
    assert code == 3 and "'accuracy' is already a metric" in err


@pytest.fixture
def learned(cli, write_suite, store):
    """The two learners run into the store: fast climbs sooner than slow on every seed."""
    path = write_suite(TWO_LEARNERS)
    code, _, err = cli("run", str(path), "--store", str(store), "--jobs", "2", "--plugin", CURVE_PLUGIN)
    assert code == 0, err
    return path


def test_reports_tabulate_curve_metrics_and_claims_are_decided_on_them(learned, store):
    from harness.reporting.load import load_report

    data = load_report(learned, store)
    by_text = {claim.text: claim.verdict for claim in data.claims}
    assert by_text == {
        "fast has the larger area under its validation curve": "supported",
        "slow has the larger area under its validation curve": "contradicted",
        "fast reaches 0.6 in fewer epochs": "supported",
        "slow reaches 0.6 in fewer epochs": "contradicted",
    }
    assert {"val_auc", "epochs_to_60", "val_at_3"} <= set(data.quality_metrics())
    assert data.metrics["epochs_to_60"].higher_is_better is False
    fast = data.cell("fast", "easy", "epochs_to_60")
    assert fast.values == (2.0,) * 6  # 1 - 0.5**2 + 0.01 * seed >= 0.6 first at epoch 2
    seeds = np.arange(6)
    at_3 = 1 - 0.8**3 + 0.01 * seeds
    assert data.cell("slow", "easy", "val_at_3").values == pytest.approx(tuple(at_3))


def test_export_of_a_suite_carries_its_curve_metrics_and_compare_judges_them(cli, learned, store, tmp_path):
    import pandas as pd

    out = tmp_path / "runs.csv"
    code, _, err = cli("export", "--store", str(store), "--suite", str(learned), "--out", str(out))
    assert code == 0, err
    frame = pd.read_csv(out)
    assert frame["metric.val_auc"].notna().all() and (frame["metric.epochs_to_60"] > 0).all()
    code, out_text, err = cli("compare", str(out), str(store), "--suite", str(learned))
    assert code == 0, err
    assert "val_auc" in out_text


def test_ci_gates_on_a_regression_rule_over_a_curve_metric(cli, learned, store, tmp_path):
    import pandas as pd

    baseline = tmp_path / "runs.csv"
    cli("export", "--store", str(store), "--suite", str(learned), "--out", str(baseline))
    code, out, err = cli("ci", str(learned), "--baseline", str(baseline), "--store", str(store))
    assert code == 0, err
    better_baseline = pd.read_csv(baseline)
    better_baseline["metric.val_auc"] += 0.05  # the candidate's area is 0.05 below: beyond max_drop 0.01
    better_baseline.to_csv(baseline, index=False)
    code, out, err = cli("ci", str(learned), "--baseline", str(baseline), "--store", str(store))
    assert code == 1 and "val_auc" in out


def test_a_report_plots_each_curve_with_seed_bands_and_renders_again_from_its_runs_file(cli, learned, store,
                                                                                        tmp_path):
    out = tmp_path / "report"
    code, _, err = cli("report", str(learned), "--store", str(store), "--out", str(out), "--format", "md,csv,png")
    assert code == 0, err
    markdown = (out / "report.md").read_text()
    for curve in ("val_score", "train_loss"):
        png = out / f"learning_{curve}_easy.png"
        assert png.stat().st_size < 80_000
        assert f"]({png.name})" in markdown
    assert "## val\\_auc ↑ (quality)" in markdown and "## epochs\\_to\\_60 ↓ \\[step\\] (quality)" in markdown
    again = tmp_path / "again"
    code, _, err = cli("report", str(learned), "--runs", str(out / "runs.csv"), "--out", str(again),
                       "--format", "md,csv,png")
    assert code == 0, err
    assert (again / "curves.csv").read_bytes() == (out / "curves.csv").read_bytes()
    assert (again / "learning_val_score_easy.png").is_file()
    assert _claims_section((again / "report.md").read_text()) == _claims_section(markdown)


def _claims_section(markdown: str) -> str:
    return markdown.split("## Claims", 1)[1].split("##", 1)[0]
