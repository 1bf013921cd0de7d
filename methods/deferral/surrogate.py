"""The k-independent, cost-sensitive surrogate of Top-k L2D (spec: shared/papers/topk_l2d.md, [inferred] there):

    Phi(r, x, y) = sum_j ( sum_{i != j} c_i(x, y) ) * Phi_01(r, x, j)

with Phi_01 a comp-sum loss of the softmax of the scores r(x): the logistic loss -log p_j (the paper's
default), generalised cross-entropy (1 - p_j^q) / q, or the mean absolute error 1 - p_j (Mao et al.'s
comp-sum family). For the logistic loss the minimiser at x is p_j proportional to sum_i E[c_i] - E[c_j], so
ranking the scores ranks the entities by expected cost for every k at once: one scorer serves every k.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import torch

Surrogate = Literal["log_softmax", "gce", "mae"]


def deferral_surrogate(scores: "torch.Tensor", costs: "torch.Tensor", kind: Surrogate = "log_softmax",
                       q: float = 0.7) -> "torch.Tensor":
    """Mean over samples of Phi for (n, E) scores and (n, E) non-negative costs."""
    import torch

    weights = costs.sum(dim=1, keepdim=True) - costs
    if kind == "log_softmax":
        per_entity = -torch.log_softmax(scores, dim=1)
    else:
        probability = torch.softmax(scores, dim=1)
        per_entity = 1.0 - probability if kind == "mae" else (1.0 - probability.pow(q)) / q
    return (weights * per_entity).sum(dim=1).mean()
