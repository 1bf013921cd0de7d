"""The uniform candidate protocol: the true label always, each wrong label with probability q."""
from __future__ import annotations

import numpy as np
import pytest

from methods.partial_label_graph.candidates import uniform_candidates


@pytest.mark.parametrize("q", [0.1, 0.3, 0.5, 0.7])
def test_each_wrong_label_enters_with_probability_q_and_the_true_label_always(q):
    y = np.arange(20_000) % 6
    mask = uniform_candidates(y, 6, q, np.random.default_rng(0))
    assert mask[np.arange(y.size), y].all()
    wrong = ~np.eye(6, dtype=bool)[y]
    rate = mask[wrong].mean()
    assert abs(rate - q) < 4 * np.sqrt(q * (1 - q) / wrong.sum())   # within four standard errors
    assert abs(mask.sum(axis=1).mean() - (1 + 5 * q)) < 0.05        # E|S| = 1 + q (C - 1)
    per_class = [mask[wrong & (np.arange(6) == c)].mean() for c in range(6)]
    assert np.ptp(per_class) < 0.03                                  # no wrong label is favoured


def test_q_zero_gives_the_true_label_alone_and_q_one_every_label():
    y = np.array([0, 2, 1])
    assert np.array_equal(uniform_candidates(y, 3, 0.0, np.random.default_rng(0)), np.eye(3, dtype=bool)[y])
    assert uniform_candidates(y, 3, 1.0, np.random.default_rng(0)).all()


def test_candidates_are_deterministic_in_the_generator():
    y = np.arange(100) % 4
    first = uniform_candidates(y, 4, 0.3, np.random.default_rng(5))
    assert np.array_equal(first, uniform_candidates(y, 4, 0.3, np.random.default_rng(5)))
    assert not np.array_equal(first, uniform_candidates(y, 4, 0.3, np.random.default_rng(6)))


def test_resampled_singletons_leave_no_set_of_size_one():
    y = np.arange(2_000) % 3
    mask = uniform_candidates(y, 3, 0.1, np.random.default_rng(0), resample_singletons=True)
    assert (mask.sum(axis=1) >= 2).all() and mask[np.arange(y.size), y].all()


@pytest.mark.parametrize("q", [-0.1, 1.5])
def test_q_outside_zero_one_is_refused(q):
    with pytest.raises(ValueError, match="q is a probability"):
        uniform_candidates(np.array([0]), 2, q, np.random.default_rng(0))
