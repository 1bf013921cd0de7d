"""The DPO loss with the flexible margin, and preference pairs from multi-objective scores (spec
shared/papers/protalign.md; the margin's form is inferred there, and so is ours):

    L = -log sigmoid( beta * [(log pi(y_w) - log ref(y_w)) - (log pi(y_l) - log ref(y_l))] - m )
    m = gamma * sum_k w_k (z_k(y_w) - z_k(y_l))

with z_k objective k z-scored over one backbone's samples. A pair with a larger weighted property gap needs a
larger log-ratio gap before its loss flattens; gamma = 0 is plain DPO (Rafailov et al., 2023)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch


def dpo_loss(policy_w: torch.Tensor, policy_l: torch.Tensor, ref_w: torch.Tensor, ref_l: torch.Tensor, beta: float,
             margin: torch.Tensor) -> torch.Tensor:
    """Mean DPO loss over pairs; all arguments (n,) torch tensors of sequence log-probabilities (margin too)."""
    import torch.nn.functional as F

    logits = beta * ((policy_w - ref_w) - (policy_l - ref_l)) - margin
    return -F.logsigmoid(logits).mean()


def standardised(scores: np.ndarray) -> np.ndarray:
    """(n, K) objectives z-scored per column over the n samples (a constant column becomes 0)."""
    spread = scores.std(axis=0)
    return (scores - scores.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


@dataclass(frozen=True)
class Pairs:
    winners: np.ndarray  # (p,) indices into the samples
    losers: np.ndarray
    margins: np.ndarray  # (p,) gamma * weighted property gap, >= 0


def preference_pairs(scores: np.ndarray, weights: np.ndarray, gamma: float) -> Pairs:
    """Samples ranked by the weighted sum of z-scored objectives; the i-th best paired with the i-th worst
    (n // 2 pairs, ties dropped), each with its flexible margin."""
    z = standardised(scores)
    scalar = z @ weights
    ranked = np.argsort(-scalar, kind="stable")
    half = len(ranked) // 2
    winners, losers = ranked[:half], ranked[::-1][:half]
    keep = scalar[winners] > scalar[losers]
    winners, losers = winners[keep], losers[keep]
    return Pairs(winners, losers, gamma * (scalar[winners] - scalar[losers]))
