"""Intervals and the within-run bootstrap, end to end on a real family's stored predictions."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from harness.cli import main
from harness.reporting.load import load_report
from harness.reporting.markdown import render_markdown
from harness.stats import (bootstrap_interval, holm, mean_win_rate, paired_test, smallest_wilcoxon_p, summarize,
                           t_quantile_975)

GAD_SUITE = """\
schema_version: 1
suite: gad_small
task: graph_anomaly.node_scoring
defaults: {seeds: [0, 1, 2]}
datasets:
  sbm: {loader: injected_sbm, args: {num_nodes: 800, num_contextual: 30, num_structural: 30, clique_size: 10}}
metrics: [auroc, auprc]
methods:
  rayleigh: {impl: rayleigh}
"""


@pytest.fixture(scope="module")
def gad_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gad")
    suite = folder / "gad.yaml"
    suite.write_text(GAD_SUITE)
    assert main(["run", str(suite), "--store", str(folder / "s.sqlite"), "--executor", "inline"]) == 0
    return suite, folder / "s.sqlite"


def test_within_run_bootstrap_stderr_is_reported_apart_from_seed_spread(gad_store):
    data = load_report(*gad_store, bootstrap_resamples=50)
    cell = data.cell("rayleigh", "sbm", "auroc")
    assert cell.bootstrap_stderr is not None and 0 < cell.bootstrap_stderr < 10
    text = render_markdown(data)
    assert "Within-run bootstrap stderr" in text and "not seed variance" in text


def test_bootstrap_interval_over_seeds_can_replace_the_t_interval(gad_store):
    t_cell = load_report(*gad_store).cell("rayleigh", "sbm", "auroc")
    boot_cell = load_report(*gad_store, interval="bootstrap").cell("rayleigh", "sbm", "auroc")
    assert t_cell.stats.mean == boot_cell.stats.mean
    assert boot_cell.stats.ci_low >= min(boot_cell.values) and boot_cell.stats.ci_high <= max(boot_cell.values)


def test_t_interval_matches_scipy():
    from scipy import stats

    values = [3.0, 5.0, 4.0, 6.0]
    summary = summarize(values)
    low, high = stats.t.interval(0.95, 3, loc=np.mean(values), scale=stats.sem(values))
    assert summary.ci_low == pytest.approx(low) and summary.ci_high == pytest.approx(high)


def test_single_value_has_no_interval_and_nan_is_counted_not_averaged():
    assert math.isnan(summarize([4.0]).ci95) and summarize([4.0]).n == 1
    with_nan = summarize([1.0, float("nan"), 3.0])
    assert with_nan.n == 2 and with_nan.n_nonfinite == 1 and with_nan.mean == 2.0


def test_equal_values_have_no_spread_even_when_their_float_mean_is_an_ulp_off():
    summary = summarize([100.0 * 0.836] * 6)  # six seeds of one zero-shot accuracy; numpy's mean is 83.60000000000001
    assert summary.mean == 100.0 * 0.836 and summary.std == 0 and summary.ci95 == 0


def test_bootstrap_interval_covers_the_mean():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    low, high = bootstrap_interval(values)
    assert low < values.mean() < high


def test_paired_test_detects_a_consistent_gain_and_respects_direction():
    better = paired_test([10, 11, 12, 13, 14, 15], [9, 10, 11, 12, 13, 14])
    assert better.p_better == pytest.approx(1 / 64) and better.mean_difference == 1
    lower_is_better = paired_test([10, 11, 12, 13, 14, 15], [9, 10, 11, 12, 13, 14], higher_is_better=False)
    assert lower_is_better.p_worse == pytest.approx(1 / 64) and lower_is_better.mean_difference == -1


def test_a_consistent_gain_below_any_absolute_tolerance_is_still_a_gain():
    tiny = paired_test([1e-9 * (i + 2) for i in range(6)], [1e-9 * (i + 1) for i in range(6)])
    assert tiny.p_better == pytest.approx(1 / 64) and tiny.mean_difference > 0


@pytest.mark.parametrize("seed", range(5))
def test_paired_tests_equal_scipy_on_random_data(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(0.2, 1, 9), rng.normal(0, 1, 9)
    test = paired_test(a, b)
    assert test.p_better == pytest.approx(scipy_stats.wilcoxon(a - b, alternative="greater").pvalue)
    assert test.p_worse == pytest.approx(scipy_stats.wilcoxon(a - b, alternative="less").pvalue)
    assert test.t_test_p == pytest.approx(scipy_stats.ttest_rel(a, b, alternative="greater").pvalue)
    flipped = paired_test(a, b, higher_is_better=False)
    assert flipped.p_better == pytest.approx(test.p_worse)


def test_the_smallest_reachable_wilcoxon_p_is_two_to_the_minus_n():
    for n in range(1, 9):
        assert smallest_wilcoxon_p(n) == pytest.approx(paired_test(np.arange(n) + 1.0, np.zeros(n)).p_better)


def test_holm_matches_the_step_down_rule():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]


def test_mean_win_rate_ignores_nan_cells_and_counts_ties_half():
    rates = mean_win_rate({"d1": {"a": 1.0, "b": 1.0, "c": float("nan")}, "d2": {"a": 2.0, "b": 1.0}})
    assert rates == {"a": 0.75, "b": 0.25}


@pytest.mark.parametrize("degrees_of_freedom", [*range(1, 66), 100, 1000])
def test_the_t_quantile_is_scipys_to_the_last_bit(degrees_of_freedom):
    assert t_quantile_975(degrees_of_freedom) == float(scipy_stats.t.ppf(0.975, degrees_of_freedom))
