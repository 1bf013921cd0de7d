"""KL(policy || reference) from the full per-position distributions: a hand computation, scipy's KL, >= 0 on
random logits, and on the real ProteinMPNN weights 0 for the reference against itself, > 0 for a tempered or
biased policy, and the same sampling distribution as `Policy.mean_logp`."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import entropy

from methods.protein_design.kl import amino_acid_log_probs, mean_kl
from tests.protein_design.conftest import needs_weights


def test_mean_kl_matches_a_hand_computation():
    with np.errstate(divide="ignore"):
        p = np.log(np.array([[0.5, 0.5], [0.3, 0.7], [1.0, 0.0]]))
    q = np.log(np.array([[0.25, 0.75], [0.3, 0.7], [0.5, 0.5]]))
    first = 0.5 * np.log(0.5 / 0.25) + 0.5 * np.log(0.5 / 0.75)  # 0.5 ln(4/3)
    assert mean_kl(p, q) == pytest.approx((first + 0.0 + np.log(2)) / 3, abs=1e-12)
    assert mean_kl(p, q, designed=np.array([True, True, False])) == pytest.approx(first / 2, abs=1e-12)


def test_mean_kl_is_zero_against_itself_and_matches_scipy_on_random_logits():
    rng = np.random.default_rng(0)
    for _ in range(20):
        policy = amino_acid_log_probs(rng.normal(scale=3, size=(12, 21)))
        reference = amino_acid_log_probs(rng.normal(scale=3, size=(12, 21)))
        value = mean_kl(policy, reference)
        assert value > 0
        plain = [entropy(np.exp(a), np.exp(b)) for a, b in zip(policy, reference, strict=True)]
        assert value == pytest.approx(np.mean(plain), rel=1e-10)
        assert mean_kl(policy, policy) == 0.0


def test_sampling_distribution_drops_x_and_applies_bias_then_temperature():
    log_probs = np.log(np.full(21, 1 / 21))
    bias = np.zeros(21)
    bias[0] = 1.0
    dist = np.exp(amino_acid_log_probs(log_probs, temperature=0.5, bias=bias))
    assert dist.shape == (20,) and dist.sum() == pytest.approx(1.0)
    assert dist[0] / dist[1] == pytest.approx(np.exp(1.0 / 0.5))


@needs_weights
def test_on_the_real_weights_the_reference_against_itself_is_zero_and_a_changed_policy_is_positive():
    pytest.importorskip("torch")
    from methods.protein_design import mpnn
    from methods.protein_design.generators import bundle
    from methods.protein_design.kl import policy_kl
    from methods.protein_design.policy import Policy, solubility_bias

    backbone = bundle(3, 12)
    reference = Policy(mpnn.load("vanilla"), 1.0)
    sequences = reference.sample(backbone, 3, seed=1, temperature=0.3)
    np.testing.assert_array_equal(policy_kl(reference, reference, backbone, sequences, 7), 0.0)
    np.testing.assert_array_equal(policy_kl(Policy(mpnn.load("vanilla"), 1.0), reference, backbone, sequences, 7),
                                  0.0)
    tempered = policy_kl(Policy(reference.model, 0.5), reference, backbone, sequences, 7)
    biased = policy_kl(Policy(reference.model, 1.0, solubility_bias(1.0)), reference, backbone, sequences, 7)
    soluble = policy_kl(Policy(mpnn.load("soluble"), 1.0), reference, backbone, sequences, 7)
    assert (tempered > 0).all() and (biased > 0).all() and (soluble > 0).all()


@needs_weights
def test_the_distributions_are_the_ones_the_policy_scores_its_designs_with():
    pytest.importorskip("torch")
    from methods.protein_design import mpnn
    from methods.protein_design.backbone import ALPHABET
    from methods.protein_design.generators import helix
    from methods.protein_design.kl import position_log_probs
    from methods.protein_design.policy import Policy, solubility_bias

    backbone = helix(14)
    policy = Policy(mpnn.load("vanilla"), 0.3, solubility_bias(0.5))
    sequences = policy.sample(backbone, 2, seed=4)
    full = position_log_probs(policy, backbone, sequences, 9)
    letters = np.array([[ALPHABET.index(a) for a in s] for s in sequences])
    own = np.take_along_axis(full, letters[..., None], axis=2)[..., 0].mean(axis=1)
    np.testing.assert_allclose(own, policy.mean_logp(backbone, sequences, 9), atol=1e-5)
