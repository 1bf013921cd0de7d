"""The tau-dormant ratio and srank on cases worked by hand."""
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.diagnostics import dormant_ratio, srank  # noqa: E402


def test_dormant_ratio_of_a_hand_case():
    # mean |h| per unit: 1, 1, 0.01, 0 -> layer mean 0.5025; scores 1.99, 1.99, 0.0199, 0
    features = np.array([[1.0, -1.0, 0.02, 0.0], [1.0, 1.0, 0.0, 0.0]])
    assert dormant_ratio(features, tau=0.025) == 0.5  # the last two units
    assert dormant_ratio(features, tau=0.0) == 0.25  # only the silent one
    assert dormant_ratio(features, tau=0.01) == 0.25  # 0.0199 > 0.01


def test_dormant_ratio_of_uniform_and_silent_layers():
    assert dormant_ratio(np.ones((3, 4))) == 0.0
    assert dormant_ratio(np.zeros((3, 4))) == 1.0


def test_srank_counts_singular_values_up_to_one_minus_delta_of_their_sum():
    # singular values 10, 5, 0.1 (sum 15.1): 15/15.1 = 0.9934 >= 0.99 -> 2
    assert srank(np.diag([10.0, 5.0, 0.1])) == 2
    assert srank(np.diag([10.0, 5.0, 0.1]), delta=0.001) == 3
    assert srank(np.diag([1.0, 1.0, 1.0, 1.0])) == 4
    assert srank(np.outer(np.arange(1.0, 6.0), np.ones(3))) == 1  # rank one
    assert srank(np.zeros((4, 3))) == 0


def test_srank_does_not_depend_on_row_order_or_an_orthogonal_rotation():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(50, 8)) * np.array([5, 4, 3, 2, 1, 0.01, 0.01, 0.01])
    rotation, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    assert srank(features) == srank(features[::-1] @ rotation) == 5


@pytest.mark.parametrize("delta", [0.01, 0.1])
def test_srank_is_at_most_the_matrix_rank(delta):
    features = np.random.default_rng(1).normal(size=(20, 6))
    assert 1 <= srank(features, delta) <= np.linalg.matrix_rank(features)
