"""Turning block scores into causal block masks: top-k per row and cumulative-mass cover per row."""
from __future__ import annotations

import torch


def causal_scores(scores: torch.Tensor) -> torch.Tensor:
    """`scores` [..., nb, nb] with every block above the diagonal at -inf, so no rule can pick one."""
    nb = scores.shape[-1]
    upper = torch.ones(nb, nb, dtype=torch.bool, device=scores.device).triu(1)
    return scores.float().masked_fill(upper, float("-inf"))


def force_blocks(scores: torch.Tensor, sink: bool, diagonal: bool) -> torch.Tensor:
    """`scores` with block 0 and/or the diagonal raised to +inf: ranked first by every rule below."""
    scores = scores.clone()
    if sink:
        scores[..., :, 0] = float("inf")
    if diagonal:
        scores.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    return causal_scores(scores)


def block_ranks(scores: torch.Tensor) -> torch.Tensor:
    """Rank (0 = best) of each block within its row, by descending score; ties keep the lower index first."""
    order = torch.sort(causal_scores(scores), dim=-1, descending=True, stable=True).indices
    return torch.argsort(order, dim=-1)


def top_k_per_row(scores: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Keep the k[..., m] best causal blocks of each row m (k is clipped to the row's m + 1 causal blocks)."""
    nb = scores.shape[-1]
    rows = torch.arange(1, nb + 1, device=scores.device)
    k = torch.minimum(k.to(scores.device), rows).clamp(min=1)
    nb_causal = torch.ones(nb, nb, dtype=torch.bool, device=scores.device).tril()
    return (block_ranks(scores) < k[..., None]) & nb_causal


def cover_per_row(scores: torch.Tensor, gamma: float) -> torch.Tensor:
    """The fewest best blocks of each row whose scores sum to at least `gamma` of the row's total.

    Scores are non-negative masses (the rule of FlexPrefill's `score_cover_idx` and of an oracle).
    """
    causal = causal_scores(scores).nan_to_num(neginf=0.0)
    return top_k_per_row(scores, cover_count(causal, gamma))


def cover_count(mass: torch.Tensor, gamma: float) -> torch.Tensor:
    """How many of the largest entries of each `mass` [..., n] row it takes to reach `gamma` of the row's sum."""
    sorted_mass, _ = torch.sort(mass.float().clamp(min=0), dim=-1, descending=True)
    total = sorted_mass.sum(-1, keepdim=True).clamp(min=torch.finfo(torch.float32).tiny)
    before = (sorted_mass.cumsum(-1) - sorted_mass) / total  # covered before taking each entry
    return (before < gamma).sum(-1).clamp(min=1)
