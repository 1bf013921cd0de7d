"""The exact expected cost of a set under the task's vote: hand-computed vote laws, a Monte Carlo check
against the panel's own draws, and the plain-average law for regression."""
from __future__ import annotations

import numpy as np
import pytest

from methods.deferral.aggregation import aggregate
from methods.deferral.set_costs import expected_set_costs, set_index, set_members, vote_win_table


def test_one_voter_wins_exactly_when_right():
    np.testing.assert_allclose(vote_win_table(1, 5), [0.0, 1.0])


def test_two_voters_the_first_in_priority_decides_a_disagreement():
    # bit 0: the first voter right, bit 1: the second. Both wrong: they may agree on a wrong label, still wrong.
    np.testing.assert_allclose(vote_win_table(2, 4), [0.0, 1.0, 0.0, 1.0])


def test_three_binary_voters_are_a_plain_majority():
    table = vote_win_table(3, 2)
    for mask in range(8):
        assert table[mask] == float(bin(mask).count("1") >= 2)


def test_three_voters_with_three_labels_by_hand():
    # one right voter against two wrong ones: if they name the same wrong label (chance 1/2) it loses two to one,
    # else a three-way tie goes to the first voter in priority
    table = vote_win_table(3, 3)
    assert table[0b001] == pytest.approx(0.5)   # voter 0 right: wins the 3-way tie when they differ
    assert table[0b100] == pytest.approx(0.0)   # voter 2 right: loses every tie to voter 0 or 1
    assert table[0b011] == table[0b110] == table[0b101] == 1.0  # two right: a majority


def test_vote_law_matches_monte_carlo_draws():
    rng = np.random.default_rng(0)
    accuracy = np.array([0.7, 0.55, 0.8, 0.4])  # voters in priority order
    classes, draws = 4, 200_000
    right = rng.random((draws, 4)) < accuracy
    wrong = rng.integers(1, classes, (draws, 4))
    answers = np.where(right, 0, wrong)
    decided = aggregate("classification", answers, np.tile([4.0, 3.0, 2.0, 1.0], (draws, 1)), classes)
    bits = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(bool)
    exact = (np.where(bits, accuracy, 1 - accuracy).prod(axis=1) * vote_win_table(4, classes)).sum()
    assert (decided == 0).mean() == pytest.approx(exact, abs=0.004)


def test_set_costs_order_voters_by_expected_loss_and_add_the_costs():
    # one sample, y known: the model is wrong (loss 1), experts right with 0.9 and 0.6; 3 classes
    loss = np.array([[1.0, 0.1, 0.4]])
    costs = np.array([0.0, 0.1, 0.2])
    table = expected_set_costs("classification", costs, loss, np.zeros((1, 3)), np.zeros(1), 3, True)
    assert table[0, 0] == np.inf
    assert table[0, 0b001] == pytest.approx(1.0)
    assert table[0, 0b010] == pytest.approx(0.1 + 0.1)
    # {expert1, expert2}: expert1 first in priority, so it decides every disagreement: right with 0.9
    assert table[0, 0b110] == pytest.approx(0.1 + 0.3)
    # all three, priority expert1, expert2, model (wrong). Both experts right (0.54): y wins. Only expert1 right
    # (0.36): expert2 names the model's label with chance 1/2 (two votes against one: lost), else a three-way tie
    # that expert1 wins. Only expert2 right (0.06): a tie would go to expert1's wrong label, so lost either way.
    assert table[0, 0b111] == pytest.approx(1 - (0.9 * 0.6 + 0.9 * 0.4 * 0.5) + 0.3)


def test_regression_sets_average_independent_noises():
    # the model's error 0.5 (squared 0.25), experts' noise variances 0.09 and 1.0
    loss = np.array([[0.25, 0.09, 1.0]])
    table = expected_set_costs("regression", np.zeros(3), loss, np.array([[0.5, 0.0, 0.0]]), np.zeros(1), 0, True)
    assert table[0, 0b011] == pytest.approx((0.25 + 0.09) / 4)
    assert table[0, 0b111] == pytest.approx((0.25 + 0.09 + 1.0) / 9)


def test_fixed_answers_are_scored_as_they_are():
    answers = np.array([[1, 0, 2]])  # y = 0: the model wrong, expert1 right, expert2 wrong
    loss = np.array([[1.0, 0.0, 1.0]])
    table = expected_set_costs("classification", np.zeros(3), loss, answers, np.zeros(1), 3, False)
    assert table[0, 0b111] == 0.0 and table[0, 0b101] == 1.0 and table[0, 0b011] == 0.0  # ties go to expert1


def test_set_index_and_members_agree():
    consulted = np.array([[True, False, True], [False, True, False]])
    members = set_members(3)
    for row, mask in zip(consulted, set_index(consulted), strict=True):
        np.testing.assert_array_equal(members[mask], np.flatnonzero(row))
