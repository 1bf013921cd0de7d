"""GRACE, its Bias/Variance split, G-Norm, G-Vendi and the teacher-selection metrics, against direct algebra."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import spearmanr

from methods.math_reasoning.grace import (
    g_norm,
    g_vendi,
    grace_score,
    normalised_covariance,
    prompt_splits,
    selection_regret,
    spearman,
)


def teacher_data(n_prompts=40, m=4, d=8, seed=0):
    rng = np.random.default_rng(seed)
    gradients = rng.normal(size=(n_prompts * m, d)) * rng.uniform(0.5, 3.0, size=(n_prompts * m, 1))
    return gradients, np.repeat(np.arange(n_prompts), m)


def explicit_split_score(gradients, train_idx, test_idx, alpha):
    """tr(Σ̂⁻¹ Σ_te) and μᵀΣ̂⁻¹μ with Σ̂ = (1 - α)Σ̃ + α·(tr Σ̃ / d)·I inverted by np.linalg.inv."""
    sigma = normalised_covariance(gradients[train_idx])
    d = sigma.shape[0]
    inverse = np.linalg.inv((1 - alpha) * sigma + alpha * np.trace(sigma) / d * np.eye(d))
    held_out = gradients[test_idx]
    mean = held_out.mean(axis=0)
    return np.trace(inverse @ (held_out.T @ held_out / len(held_out))), mean @ inverse @ mean


def test_splits_hold_out_whole_prompts_and_cover_every_row_once():
    prompt_ids = np.repeat(np.array([7, 3, 11, 5, 2, 9, 4, 8, 1, 6, 10, 0]), 3)
    np.random.default_rng(0).shuffle(prompt_ids)  # rows need not be grouped
    for train_idx, test_idx in prompt_splits(prompt_ids, n_splits=10, test_fraction=0.25):
        assert np.intersect1d(train_idx, test_idx).size == 0
        assert np.array_equal(np.sort(np.concatenate([train_idx, test_idx])), np.arange(len(prompt_ids)))
        assert not set(prompt_ids[train_idx]) & set(prompt_ids[test_idx])
        assert len(set(prompt_ids[test_idx])) == 3 and len(test_idx) == 9  # floor(12 * 0.25) prompts x 3


def test_split_i_is_seeded_with_seed0_plus_i_and_splits_differ():
    prompt_ids = np.repeat(np.arange(30), 2)
    splits = prompt_splits(prompt_ids, n_splits=4, seed0=5)
    again = prompt_splits(prompt_ids, n_splits=1, seed0=7)[0]
    assert np.array_equal(splits[2][1], again[1])
    assert len({tuple(test) for _, test in splits}) == 4


def test_held_out_prompts_are_the_tail_of_a_default_rng_permutation_as_released():
    prompt_ids = np.repeat(np.arange(25), 4)  # the released layout: prompt by prompt, m rows each
    _, test_idx = prompt_splits(prompt_ids, n_splits=1, test_fraction=0.1, seed0=3)[0]
    expected = np.random.default_rng(3).permutation(25)[-2:]  # max(1, int(25 * 0.1)) = 2 prompts
    assert set(prompt_ids[test_idx]) == set(expected)


def test_too_few_prompts_or_mismatched_ids_are_user_errors():
    with pytest.raises(ValueError, match="none for training"):
        prompt_splits(np.zeros(4), test_fraction=0.5)
    with pytest.raises(ValueError, match="one id per gradient row"):
        grace_score(np.ones((6, 3)), np.arange(5))


@pytest.mark.parametrize("n_prompts,d", [(40, 8), (3, 16)])  # full-rank Σ̃, and rank-deficient (clipped) Σ̃
def test_score_matches_explicit_inverse_of_smoothed_covariance(n_prompts, d):
    gradients, prompt_ids = teacher_data(n_prompts=n_prompts, d=d)
    scores = grace_score(gradients, prompt_ids, alpha=1e-2, n_splits=5)
    splits = prompt_splits(prompt_ids, n_splits=5)
    expected = [explicit_split_score(gradients, tr, te, 1e-2) for tr, te in splits]
    np.testing.assert_allclose(scores.grace_per_split, [e[0] for e in expected], rtol=1e-6)
    np.testing.assert_allclose(scores.bias_per_split, [e[1] for e in expected], rtol=1e-6)
    assert scores.grace == pytest.approx(np.mean([e[0] for e in expected]), rel=1e-6)


def test_bias_plus_variance_is_grace_in_every_split():
    gradients, prompt_ids = teacher_data(seed=1)
    gradients += 2.0  # a non-zero mean gradient, so both terms matter
    scores = grace_score(gradients, prompt_ids)
    assert min(scores.bias_per_split) > 0 and min(scores.variance_per_split) > 0
    np.testing.assert_allclose(np.add(scores.bias_per_split, scores.variance_per_split), scores.grace_per_split,
                               rtol=1e-10)
    assert scores.bias + scores.variance == pytest.approx(scores.grace, rel=1e-10)


def test_training_rows_enter_normalised_but_held_out_rows_scale_quadratically():
    gradients, prompt_ids = teacher_data(seed=2)
    base = grace_score(gradients, prompt_ids, n_splits=1)
    train_idx, test_idx = prompt_splits(prompt_ids, n_splits=1)[0]
    rescaled_train = gradients.copy()
    rescaled_train[train_idx] *= np.random.default_rng(0).uniform(0.01, 100.0, size=(len(train_idx), 1))
    assert grace_score(rescaled_train, prompt_ids, n_splits=1).grace == pytest.approx(base.grace, rel=1e-9)
    scaled_test = gradients.copy()
    scaled_test[test_idx] *= 3.0
    scaled = grace_score(scaled_test, prompt_ids, n_splits=1)
    assert scaled.grace == pytest.approx(9.0 * base.grace, rel=1e-9)
    assert scaled.bias == pytest.approx(9.0 * base.bias, rel=1e-9)


def test_teacher_inside_the_covered_subspace_scores_lower_than_one_off_it():
    rng = np.random.default_rng(3)
    n_prompts, m, d = 40, 4, 64
    prompt_ids = np.repeat(np.arange(n_prompts), m)
    shared_basis = rng.normal(size=(4, d))
    covered = rng.normal(size=(n_prompts * m, 4)) @ shared_basis  # every prompt in one 4-d subspace
    own_direction = np.repeat(rng.normal(size=(n_prompts, d)), m, axis=0)  # each prompt its own direction
    off = own_direction + 0.1 * rng.normal(size=own_direction.shape)
    covered *= np.sqrt(np.mean(np.sum(off ** 2, 1)) / np.mean(np.sum(covered ** 2, 1)))  # same G-Norm
    assert g_norm(covered) == pytest.approx(g_norm(off))
    assert 10 * grace_score(covered, prompt_ids).grace < grace_score(off, prompt_ids).grace


def test_g_vendi_is_log_d_for_isotropic_and_zero_for_rank_one_gradients():
    d = 16
    isotropic = np.concatenate([np.eye(d) * 2.0, -np.eye(d) * 0.5])
    assert g_vendi(isotropic) == pytest.approx(np.log(d))
    direction = np.random.default_rng(4).normal(size=d)
    rank_one = np.outer([1.0, -3.0, 0.2, 7.0], direction)
    assert g_vendi(rank_one) == pytest.approx(0.0, abs=1e-9)
    gaussian = np.random.default_rng(5).normal(size=(4000, d))
    assert np.log(d) - 0.05 < g_vendi(gaussian) <= np.log(d)


def test_g_norm_is_the_mean_squared_length():
    assert g_norm(np.array([[3.0, 4.0], [0.0, 1.0]])) == pytest.approx((25 + 1) / 2)


def test_spearman_flips_the_score_sign_and_matches_scipy():
    accuracies = np.array([0.9, 0.1, 0.5, 0.7])
    assert spearman(np.array([1.0, 9.0, 5.0, 3.0]), accuracies) == pytest.approx(1.0)
    scores = np.random.default_rng(6).normal(size=12)
    accuracies = np.random.default_rng(7).uniform(size=12)
    assert spearman(scores, accuracies) == pytest.approx(spearmanr(-scores, accuracies).statistic)


def test_spearman_of_a_constant_side_is_nan_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(spearman(np.ones(4), np.array([0.1, 0.2, 0.3, 0.4])))
        assert np.isnan(spearman(np.array([1.0, 2.0, 3.0]), np.full(3, 0.5)))


def test_regret_is_best_accuracy_minus_the_selected_teachers():
    accuracies = np.array([0.40, 0.90, 0.60])
    assert selection_regret(np.array([2.0, 1.0, 3.0]), accuracies) == pytest.approx(0.0)
    assert selection_regret(np.array([1.0, 2.0, 3.0]), accuracies) == pytest.approx(0.5)
    assert selection_regret(np.array([1.0, 2.0, 3.0]), accuracies, lower_is_better=False) == pytest.approx(0.3)
    assert selection_regret(np.array([1.0, 3.0, 1.0]), accuracies) == pytest.approx(0.5)  # tie: the first
