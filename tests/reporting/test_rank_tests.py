"""Friedman, Nemenyi and Holm-corrected Wilcoxon over datasets (Demsar 2006) against scipy and hand-checked values."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from harness.reporting.rank_tests import (average_ranks, critical_difference, friedman, nemenyi_groups, nemenyi_q,
                                          pairwise_wilcoxon, signed_rank_p, smallest_two_sided_p)
from harness.stats import holm


@pytest.mark.parametrize("seed", range(5))
def test_friedman_statistic_and_p_equal_scipys_friedmanchisquare(seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(8 + seed, 3 + seed))
    found = friedman(scores, higher_is_better=True)
    expected = stats.friedmanchisquare(*scores.T)
    assert found.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-10)


def test_friedman_with_ties_equals_scipys_tie_corrected_statistic():
    scores = np.random.default_rng(7).integers(0, 3, size=(10, 4)).astype(float)  # many ties within a dataset
    found = friedman(scores, higher_is_better=False)
    expected = stats.friedmanchisquare(*scores.T)
    assert found.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-10)


def test_friedman_direction_only_mirrors_the_mean_ranks():
    scores = np.random.default_rng(3).normal(size=(6, 4))
    up, down = friedman(scores, True), friedman(scores, False)
    assert up.statistic == pytest.approx(down.statistic)
    assert np.allclose(np.array(up.mean_ranks) + np.array(down.mean_ranks), 4 + 1)


def test_friedman_of_datasets_tied_throughout_is_no_evidence():
    found = friedman(np.ones((5, 3)), higher_is_better=True)
    assert (found.statistic, found.p_value) == (0.0, 1.0)
    assert found.mean_ranks == (2.0, 2.0, 2.0)


def test_ranks_put_the_best_first_and_share_ties_as_their_average():
    scores = np.array([[0.9, 0.7, 0.9, 0.1]])
    assert average_ranks(scores, higher_is_better=True).tolist() == [[1.5, 3.0, 1.5, 4.0]]
    assert average_ranks(scores, higher_is_better=False).tolist() == [[3.5, 2.0, 3.5, 1.0]]


def test_nemenyi_critical_difference_equals_demsars_worked_example():
    """Demsar 2006, Sec. 3.2.2 and Table 5(a): k = 4 methods, N = 14 datasets, alpha 0.05: q = 2.569, and
    CD = 2.569 * sqrt(4 * 5 / (6 * 14)) = 2.569 * 0.48795 = 1.2536, '1.25' in the paper."""
    assert nemenyi_q(4) == pytest.approx(2.569, abs=5e-4)
    assert critical_difference(4, 14) == pytest.approx(2.569 * math.sqrt(20 / 84), abs=1e-3)
    assert round(critical_difference(4, 14), 2) == 1.25


@pytest.mark.parametrize(("methods", "q"), [(2, 1.960), (3, 2.343), (5, 2.728), (10, 3.164)])
def test_nemenyi_q_matches_demsars_table_5a(methods, q):
    assert nemenyi_q(methods) == pytest.approx(q, abs=1e-3)


def test_pairwise_wilcoxon_is_scipys_two_sided_test_holm_corrected():
    scores = np.random.default_rng(11).normal(size=(12, 3)) + np.array([0.0, 0.5, 1.5])
    pairs = pairwise_wilcoxon(scores, higher_is_better=True)
    raw = [stats.wilcoxon(scores[:, a] - scores[:, b]).pvalue for a, b in ((0, 1), (0, 2), (1, 2))]
    assert [(p.first, p.second) for p in pairs] == [(0, 1), (0, 2), (1, 2)]
    assert [p.p_value for p in pairs] == pytest.approx(raw)
    assert [p.p_holm for p in pairs] == pytest.approx(holm(raw))
    assert [p.better for p in pairs] == [1, 2, 2]


def test_pairwise_wilcoxon_says_the_lower_cells_are_better_for_a_lower_is_better_metric():
    scores = np.column_stack([np.arange(8.0), np.arange(8.0) + 1])
    (pair,) = pairwise_wilcoxon(scores, higher_is_better=False)
    assert pair.better == 0 and pair.p_value == pytest.approx(2 / 2 ** 8)


def test_a_pair_equal_on_every_dataset_has_p_one():
    (pair,) = pairwise_wilcoxon(np.ones((6, 2)), higher_is_better=True)
    assert (pair.p_value, pair.p_holm) == (1.0, 1.0)


def test_no_pair_can_differ_over_five_datasets_or_fewer():
    assert smallest_two_sided_p(5) == 0.0625 and smallest_two_sided_p(6) == 0.03125
    scores = np.column_stack([np.arange(5.0), np.arange(5.0) + 10])  # one side wins everywhere
    (pair,) = pairwise_wilcoxon(scores, higher_is_better=True)
    assert pair.p_value == pytest.approx(smallest_two_sided_p(5))


def test_nemenyi_groups_join_methods_closer_than_the_critical_difference():
    # sorted 1.0, 1.5, 2.6, 3.0, 4.5: 1.0-1.5, 1.5-2.6 and 2.6-3.0 are within 1.25; 1.5-3.0 and 3.0-4.5 are not
    assert nemenyi_groups([3.0, 1.0, 4.5, 1.5, 2.6], 1.25) == [(0, 1), (1, 2), (2, 3)]


def test_nemenyi_groups_drop_runs_inside_a_longer_one():
    assert nemenyi_groups([1.0, 1.2, 1.4, 1.6], 1.0) == [(0, 3)]
    assert nemenyi_groups([1.0, 2.0, 3.0], 0.5) == []


@pytest.mark.parametrize("seed", range(8))
def test_signed_rank_p_equals_scipys_wilcoxon_with_ties_and_zeros(seed):
    rng = np.random.default_rng(seed)
    differences = np.round(rng.normal(0.4, 1.0, size=int(rng.integers(5, 20))))  # ties and zeros, 5-19 pairs
    expected = stats.wilcoxon(differences[differences != 0]).pvalue
    assert signed_rank_p(differences) == pytest.approx(expected, rel=1e-12)


def test_signed_rank_p_equals_scipys_exact_p_without_ties():
    differences = np.random.default_rng(5).normal(0.5, 1.0, size=11)
    assert signed_rank_p(differences) == pytest.approx(stats.wilcoxon(differences).pvalue, rel=1e-12)
