"""KL(policy || reference) as a KL: the mean over designed positions of the KL divergence between the two models'
FULL per-position amino-acid distributions, both read on the same backbone with the same conditioning sequence and
decoding order (issue 60).

Why not the metric `kl_reference` (`scored.py`): that is the plug-in difference log pi(y) - log ref(y) of the
designs' own letters in the task's fixed scoring order, while the designs were sampled in other orders, so it is
order-dependent and can be negative. Here each position contributes sum_a pi(a) [log pi(a) - log ref(a)], which is
>= 0 by Gibbs' inequality and exactly 0 when the two distributions are equal. Conditioned on a sequence y drawn
from the policy in the decoding order used, the mean over positions is the Rao-Blackwellised estimate of the
sequence-level KL per residue (chain rule of the KL). Both distributions are the ones a policy samples from:
ProteinMPNN's log-probabilities plus the policy's bias, divided by its temperature, X removed (the sampler never
draws it) and renormalised over the 20 amino acids.

The methods with weights fill the predictions column `policy_kl` with it (`designed`), against the packaged
vanilla v_48_020 at the design temperature without bias, so that ProteinMPNN at its design temperature scores
exactly 0; the metric `kl_full` averages it."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from methods.protein_design import mpnn
from methods.protein_design.backbone import AMINO_ACIDS, Backbone, encode
from methods.protein_design.policy import Policy
from methods.protein_design.problem import DesignInputs, Designs


def amino_acid_log_probs(log_probs: np.ndarray, temperature: float = 1.0, bias: np.ndarray | None = None
                         ) -> np.ndarray:
    """(..., 21) model log-probabilities to the (..., 20) log-probabilities a policy samples from: ProteinMPNN's
    sampler adds the bias, divides by the temperature and omits X (`mpnn.sample`, `Policy.mean_logp`)."""
    logits = (log_probs if bias is None else log_probs + bias) / temperature
    logits = logits[..., : len(AMINO_ACIDS)]
    return logits - logsumexp(logits, axis=-1, keepdims=True)


def mean_kl(policy_log_probs: np.ndarray, reference_log_probs: np.ndarray, designed: np.ndarray | None = None
            ) -> float:
    """Mean over designed positions of KL(p || q) = sum_a p_a (log p_a - log q_a), from (L, A) normalised
    log-probabilities; `designed` (L,) bool selects the positions (default: all). A letter the policy never
    draws (p_a = 0) contributes 0."""
    if policy_log_probs.shape != reference_log_probs.shape or policy_log_probs.ndim != 2:
        raise ValueError(f"two (L, A) arrays expected, got {policy_log_probs.shape} and {reference_log_probs.shape}")
    p = np.exp(policy_log_probs)
    with np.errstate(invalid="ignore"):  # 0 * (-inf) where p_a = 0; those terms are set to 0
        terms = np.where(p > 0, p * (policy_log_probs - reference_log_probs), 0.0)
    per_position = terms.sum(axis=-1)
    chosen = np.ones(len(per_position), dtype=bool) if designed is None else np.asarray(designed, dtype=bool)
    if chosen.shape != per_position.shape or not chosen.any():
        raise ValueError(f"`designed` needs one flag per position ({len(per_position)}) and at least one True")
    return float(per_position[chosen].mean())


def position_log_probs(policy: Policy, backbone: Backbone, sequences: Sequence[str], order_seed: int
                       ) -> np.ndarray:
    """(n, L, 20) float64: each position's full sampling distribution under the policy (its temperature and
    bias), conditioned on the sequence's letters decoded before it in the order `order_seed` gives."""
    import torch

    tokens = torch.as_tensor(np.stack([encode(s) for s in sequences]))
    order = mpnn.decoding_order(backbone.length, order_seed)
    batch = mpnn.features(backbone).repeat(len(sequences))
    with torch.no_grad():
        log_probs = policy.model(batch.x, tokens, batch.mask, batch.mask, batch.residue, batch.chain,
                                 order.expand(len(sequences), -1))
    return amino_acid_log_probs(log_probs.numpy().astype(np.float64), policy.temperature, policy.bias)


def policy_kl(policy: Policy, reference: Policy, backbone: Backbone, sequences: Sequence[str], order_seed: int,
              designed: np.ndarray | None = None) -> np.ndarray:
    """(n,) per sequence: the mean over designed positions of KL(policy || reference), both models conditioned
    on that sequence in the same decoding order; >= 0, and 0 when the policy is the reference."""
    if not sequences:
        return np.zeros(0)
    ours = position_log_probs(policy, backbone, sequences, order_seed)
    theirs = position_log_probs(reference, backbone, sequences, order_seed)
    return np.array([mean_kl(p, q, designed) for p, q in zip(ours, theirs, strict=True)])


def designed(policy: Policy, inputs: DesignInputs, seed: int) -> Designs:
    """The policy's designs of the test backbones with their log-probabilities in the scoring order and their
    KL to the packaged vanilla ProteinMPNN at the policy's own (design) temperature without bias: the reference
    that isolates what fine-tuning or a bias changed from the temperature's effect."""
    sequences, logp = policy.design(inputs.test, inputs.designs, seed, inputs.order_seed)
    reference = Policy(mpnn.load("vanilla", "020"), policy.temperature)
    kl = {b.name: policy_kl(policy, reference, b, sequences[b.name], inputs.order_seed) for b in inputs.test}
    return Designs(sequences, logp, policy_kl=kl)
