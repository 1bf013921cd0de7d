"""ProtParam figures are Biopython's; the Pareto tools, the DPO loss and the pairs match hand computations."""
from __future__ import annotations

import math

import numpy as np
import pytest

from methods.protein_design.dpo import preference_pairs, standardised
from methods.protein_design.objectives import developability, protparam
from methods.protein_design.pareto import front, hypervolume, win_rate


def test_protparam_equals_biopython_and_gravy_the_kyte_doolittle_mean():
    pytest.importorskip("Bio", reason="the `protein` extra (Biopython) is not installed")
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    for sequence in ("MKTAYIAKQRQISFVKSHFSRQ", "EEKKLLEELLKK", "WYFGGSTNQ"):
        ours, theirs = protparam(sequence), ProteinAnalysis(sequence)
        assert ours == {"gravy": theirs.gravy(), "instability": theirs.instability_index(),
                        "pi": theirs.isoelectric_point(), "aromaticity": theirs.aromaticity(),
                        "charge": theirs.charge_at_pH(7.0)}
    assert protparam("IR")["gravy"] == pytest.approx((4.5 - 4.5) / 2)
    assert developability("AK") == pytest.approx(-(1.8 - 3.9) / 2)
    assert protparam("KWFY")["aromaticity"] == pytest.approx(0.75)


def test_front_and_hypervolume_by_hand():
    points = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [1.0, 1.0], [2.0, 2.0]])
    assert sorted(front(points).tolist()) == [0, 1, 2]
    # staircase above (0, 0): 3*1 + 2*(2-1) + 1*(3-2) = 6
    assert hypervolume(points, np.array([0.0, 0.0])) == pytest.approx(6.0)
    assert hypervolume(points, np.array([5.0, 5.0])) == 0.0


def test_win_rate_counts_domination_both_ways():
    better, worse = np.array([[2.0, 2.0]]), np.array([[1.0, 1.0], [3.0, 0.0]])
    assert win_rate(better, worse) == pytest.approx(0.5)
    assert win_rate(worse, better) == pytest.approx(-0.5)
    assert win_rate(worse, worse) == 0.0


def test_dpo_loss_matches_a_hand_computed_case():
    torch = pytest.importorskip("torch")
    from methods.protein_design.dpo import dpo_loss

    beta, margin = 0.5, 0.3
    # log-ratios: winner -10 - (-12) = 2, loser -11 - (-10) = -1: logit 0.5 * 3 - 0.3 = 1.2
    loss = dpo_loss(torch.tensor([-10.0]), torch.tensor([-11.0]), torch.tensor([-12.0]), torch.tensor([-10.0]),
                    beta, torch.tensor([margin]))
    assert float(loss) == pytest.approx(-math.log(1 / (1 + math.exp(-1.2))), rel=1e-6)
    plain = dpo_loss(torch.tensor([-10.0]), torch.tensor([-11.0]), torch.tensor([-12.0]), torch.tensor([-10.0]),
                     beta, torch.tensor([0.0]))
    assert float(plain) < float(loss)  # a margin asks for a larger log-ratio gap


def test_pairs_put_the_scalarised_best_against_the_worst_with_their_gap_as_margin():
    scores = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 3.0]])
    weights = np.array([1.0, 1.0])
    pairs = preference_pairs(scores, weights, gamma=2.0)
    scalar = standardised(scores) @ weights
    assert pairs.winners.tolist() == [3, 1] and pairs.losers.tolist() == [0, 2]
    np.testing.assert_allclose(pairs.margins, 2.0 * (scalar[[3, 1]] - scalar[[0, 2]]))
    assert (pairs.margins > 0).all()
    single = preference_pairs(scores, np.array([0.0, 1.0]), gamma=0.0)
    assert (single.margins == 0).all() and single.winners.tolist()[0] == 3
