"""Rank intervals, the probability of being best and the leader's flips, on small constructed cases."""
from __future__ import annotations

import numpy as np
import pytest

from harness.reporting.rank_uncertainty import rank_text, rank_uncertainty


def _ranks(cells: dict[tuple[str, str], list[float]], higher: bool = True, seed: int = 0):
    methods = tuple(dict.fromkeys(m for m, _ in cells))
    datasets = tuple(dict.fromkeys(d for _, d in cells))
    samples = {key: np.asarray(values, dtype=float) for key, values in cells.items()}
    observed = np.array([[samples[(m, d)].mean() for m in methods] for d in datasets])
    return rank_uncertainty(methods, datasets, observed, samples, higher, draws=500, seed=seed)


def _by_method(found):
    return {row.method: row for row in found.methods}


def test_a_clear_winner_is_best_in_every_draw_with_rank_interval_one_to_one():
    cells = {("winner", d): [90.0 + s for s in range(5)] for d in ("a", "b", "c")}
    cells |= {("rival", d): [50.0 + s for s in range(5)] for d in ("a", "b", "c")}
    cells |= {("weak", d): [10.0 + s for s in range(5)] for d in ("a", "b", "c")}
    found = _by_method(_ranks(cells))
    assert found["winner"].p_best == 1.0
    assert (found["winner"].mean_rank.low, found["winner"].mean_rank.high) == (1.0, 1.0)
    assert [(r.low, r.high) for r in found["winner"].by_dataset] == [(1.0, 1.0)] * 3
    assert found["rival"].p_best == found["weak"].p_best == 0.0
    assert found["weak"].mean_rank.text == "3 [3, 3]"


def test_two_exactly_tied_methods_split_the_probability_of_being_best():
    cells = {("a", "d"): [0.8, 0.8, 0.8], ("b", "d"): [0.8, 0.8, 0.8], ("c", "d"): [0.1, 0.2, 0.3]}
    found = _by_method(_ranks(cells))
    assert found["a"].p_best == found["b"].p_best == 0.5
    assert found["a"].mean_rank.rank == 1.5 and found["c"].p_best == 0.0


def test_two_methods_with_the_same_seeds_split_the_probability_of_being_best_about_evenly():
    noisy = [0.70, 0.74, 0.78, 0.82, 0.86]
    cells = {("a", "d1"): noisy, ("b", "d1"): noisy[::-1], ("a", "d2"): noisy, ("b", "d2"): noisy[::-1]}
    found = _by_method(_ranks(cells))
    assert found["a"].p_best + found["b"].p_best == pytest.approx(1.0)
    assert 0.4 < found["a"].p_best < 0.6
    assert (found["a"].mean_rank.low, found["a"].mean_rank.high) == (1.0, 2.0)


def test_a_lower_is_better_metric_ranks_the_smallest_first():
    cells = {("cheap", "d"): [1.0, 1.1], ("dear", "d"): [5.0, 5.1]}
    found = _ranks(cells, higher=False)
    assert found.leader == "cheap" and found.methods[0].p_best == 1.0


def test_the_datasets_that_flip_the_leader_name_who_is_first_there():
    cells = {("a", "d1"): [9.0], ("b", "d1"): [5.0], ("c", "d1"): [1.0],
             ("a", "d2"): [9.0], ("b", "d2"): [5.0], ("c", "d2"): [1.0],
             ("a", "d3"): [5.0], ("b", "d3"): [9.0], ("c", "d3"): [1.0]}
    found = _ranks(cells)
    assert found.leader == "a"
    assert [(flip.dataset, flip.first) for flip in found.flips] == [("d3", ("b",))]


def test_a_tie_for_first_is_not_a_flip():
    cells = {("a", "d1"): [9.0], ("b", "d1"): [1.0], ("a", "d2"): [5.0], ("b", "d2"): [5.0]}
    assert _ranks(cells).flips == ()


def test_the_mean_rank_interval_also_redraws_datasets():
    """Seeds cannot move a single-seed cell; one dataset that favours `b` still widens `a`'s mean-rank interval."""
    cells = {("a", "d1"): [9.0], ("b", "d1"): [1.0], ("a", "d2"): [9.0], ("b", "d2"): [1.0],
             ("a", "d3"): [1.0], ("b", "d3"): [9.0]}
    a = _by_method(_ranks(cells))["a"]
    assert [(r.low, r.high) for r in a.by_dataset] == [(1.0, 1.0), (1.0, 1.0), (2.0, 2.0)]
    assert a.mean_rank.rank == pytest.approx(4 / 3) and (a.mean_rank.low, a.mean_rank.high) == (1.0, 2.0)
    assert 0.6 < a.p_best < 0.9  # two of three datasets drawn for it, on average


def test_the_same_seed_gives_the_same_intervals_and_another_may_not():
    noisy = {(m, d): list(np.random.default_rng(i).normal(size=4)) for i, (m, d) in
             enumerate((m, d) for m in "abc" for d in ("x", "y", "z"))}
    first, again = _ranks(noisy, seed=1), _ranks(noisy, seed=1)
    assert first == again


def test_rank_text_drops_trailing_zeros():
    assert [rank_text(x) for x in (1.0, 1.5, 7 / 3)] == ["1", "1.5", "2.33"]
