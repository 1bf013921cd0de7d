"""The surrogate's minimiser recovers the Bayes allocation (consistency), on a toy with known posteriors."""
from __future__ import annotations

import numpy as np
import pytest

from methods.deferral.allocation import top_k
from methods.deferral.scorer import ScorerConfig, train_scorer
from methods.deferral.surrogate import deferral_surrogate

# Four inputs (one-hot features), three labels, five entities: each input's posterior P(y | x), each entity's
# probability of answering label y correctly, and the entities' costs beta.
POSTERIOR = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.4, 0.4, 0.2]])
COMPETENCE = np.array([[0.30, 0.49, 0.38], [0.95, 0.90, 0.91], [0.88, 0.78, 0.43], [0.74, 0.58, 0.41],
                       [0.87, 0.40, 0.90]])
BETA = np.array([0.15, 0.0, 0.0, 0.1, 0.1])
EXPECTED = POSTERIOR @ (1.0 - COMPETENCE).T + BETA  # (input, entity) E[c_j | x], the Bayes ranking's key
LINEAR = ScorerConfig(hidden=0, epochs=600, lr=0.1, weight_decay=0.0)


def _sampled_costs(per_input: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One-hot features and realised costs 1[entity wrong] + beta for `per_input` draws of y ~ P(y | x)."""
    inputs = np.repeat(np.arange(len(POSTERIOR)), per_input)
    labels = np.array([rng.choice(3, p=POSTERIOR[i]) for i in inputs])
    wrong = rng.random((inputs.size, len(BETA))) >= COMPETENCE[:, labels].T
    return np.eye(len(POSTERIOR))[inputs], wrong + BETA[None, :]


def test_toy_expected_costs_are_distinct_enough_to_rank_and_rank_differently_per_input():
    gaps = np.diff(np.sort(EXPECTED, axis=1), axis=1)
    assert gaps.min() > 0.07 and len({tuple(order) for order in np.argsort(EXPECTED, axis=1)}) == 3


def _claimed_minimiser() -> np.ndarray:
    """p_j = (sum_i E c_i - E c_j) / normaliser, per input."""
    weights = EXPECTED.sum(axis=1, keepdims=True) - EXPECTED
    return weights / weights.sum(axis=1, keepdims=True)


def test_population_minimiser_is_proportional_to_the_other_entities_costs():
    """With the expected costs, the surrogate's gradient vanishes where its softmax is p_j (exactly, in float64):
    the minimiser the consistency argument needs."""
    torch = pytest.importorskip("torch")
    logits = torch.tensor(np.log(_claimed_minimiser()), dtype=torch.float64, requires_grad=True)
    deferral_surrogate(logits, torch.tensor(EXPECTED)).backward()
    assert logits.grad.abs().max().item() < 1e-12


def test_training_the_linear_scorer_reaches_the_population_minimiser():
    """Adam in float32 (lr 0.05, 3000 epochs) ends within its own jitter around the minimiser: measured 4e-6 to
    3.8e-4 off on Intel Xeons (one each: AVX-512 and not) and an AMD EPYC, hence the 2e-3 tolerance."""
    converged = ScorerConfig(hidden=0, epochs=3000, lr=0.05, weight_decay=0.0)
    scores = train_scorer(np.eye(4), EXPECTED, converged, seed=0).scores(np.eye(4))
    softmax = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax, _claimed_minimiser(), atol=2e-3)


@pytest.fixture(scope="module")
def sampled_scores() -> np.ndarray:
    """The scores of one scorer trained on realised costs, at the four inputs."""
    features, costs = _sampled_costs(per_input=2000, rng=np.random.default_rng(1))
    return train_scorer(features, costs, LINEAR, seed=0).scores(np.eye(4))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_one_scorer_trained_on_sampled_costs_recovers_the_bayes_top_k_for_every_k(sampled_scores, k):
    np.testing.assert_array_equal(top_k(sampled_scores, k), top_k(-EXPECTED, k))


def test_gce_surrogate_recovers_the_bayes_top_1():
    features, costs = _sampled_costs(per_input=2000, rng=np.random.default_rng(2))
    config = ScorerConfig(hidden=0, epochs=600, lr=0.1, weight_decay=0.0, surrogate="gce", q=0.7)
    scores = train_scorer(features, costs, config, seed=0).scores(np.eye(4))
    np.testing.assert_array_equal(scores.argmax(axis=1), EXPECTED.argmin(axis=1))
