"""PRISM's relational inference within a minibatch: cross-graph similarities, top-k
relational graphs restricted to overlapping candidate sets, and label propagation
projected onto each graph's candidates (shared/papers/prism.md, steps 4-5).

Pure tensor functions without gradients: the relational graph steers the label
confidences, not the encoder.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor


# Rows with less l1 mass than this count as empty: N(.) cannot scale them to a distribution.
EMPTY_ROW_MASS = 1e-12


def row_normalised(matrix: Tensor) -> Tensor:
    """N(.): each row divided by its l1 norm; (nearly) empty rows stay as they are."""
    return matrix / matrix.abs().sum(dim=1, keepdim=True).clamp_min(EMPTY_ROW_MASS)


def candidates_overlap(candidates: Tensor) -> Tensor:
    """bool [B, B]: S_i and S_j share a label, i != j."""
    overlap = (candidates @ candidates.T) > 0
    return overlap & ~torch.eye(candidates.shape[0], dtype=torch.bool, device=candidates.device)


def substructure_similarity(substructures: Tensor, prototypes: Tensor, candidates: Tensor) -> Tensor:
    """s^spa [B, B] = max over shared candidates c of cos(r_i^c, r_j^c) * cos((r_i^c + r_j^c) / 2, p_c).

    `substructures` is r [B, C, d]; pairs sharing no candidate get -inf.
    """
    gram = torch.einsum("icd,jcd->cij", substructures, substructures)           # r_i^c . r_j^c
    squared = gram.diagonal(dim1=1, dim2=2)                                      # [C, B]: |r_i^c|^2
    norms = squared.clamp_min(0).sqrt()
    agreement = gram / (norms.unsqueeze(2) * norms.unsqueeze(1)).clamp_min(1e-12)
    # cos(r_i + r_j, p_c) without forming the [B, B, C, d] sums: |r_i + r_j|^2 = |r_i|^2 + |r_j|^2 + 2 r_i.r_j
    along = torch.einsum("icd,cd->ci", substructures, prototypes)
    sum_norms = (squared.unsqueeze(2) + squared.unsqueeze(1) + 2 * gram).clamp_min(0).sqrt()
    towards_prototype = (along.unsqueeze(2) + along.unsqueeze(1)) / (
        sum_norms * prototypes.norm(dim=1)[:, None, None]).clamp_min(1e-12)
    score = (agreement * towards_prototype).permute(1, 2, 0)                     # [B, B, C]
    shared = (candidates.unsqueeze(1) * candidates.unsqueeze(0)) > 0            # [B, B, C]
    return score.masked_fill(~shared, float("-inf")).amax(dim=2)


def band_similarity(band_embeddings: Tensor, valid: Tensor) -> Tensor:
    """s^spe [B, B] = max over bands p present in both graphs of cos(z_i^(p), z_j^(p)); -inf if none."""
    unit = F.normalize(band_embeddings, dim=2)
    score = torch.einsum("ipd,jpd->ijp", unit, unit)
    both = valid.unsqueeze(1) & valid.unsqueeze(0)
    return score.masked_fill(~both, float("-inf")).amax(dim=2)


def top_k_graph(similarity: Tensor, allowed: Tensor, k: int, weighted: bool = True) -> Tensor:
    """A [B, B]: per row the k most similar allowed columns, each edge weighted by its
    similarity clamped at 0, or 1 when not `weighted` [inferred: the paper does not say
    whether the kept edges are weighted]. A row with fewer than k allowed columns keeps those."""
    scores = similarity.masked_fill(~allowed, float("-inf"))
    k = min(k, scores.shape[1])
    top, columns = scores.topk(k, dim=1)
    weights = top.clamp_min(0.0).nan_to_num(neginf=0.0) if weighted else torch.isfinite(top).to(similarity.dtype)
    adjacency = torch.zeros_like(similarity)
    adjacency.scatter_(1, columns, weights)
    return adjacency


def propagate(initial: Tensor, adjacencies: list[Tensor], candidates: Tensor, mu: float, iterations: int) -> Tensor:
    """E rounds of Y~ = mu Y + (1 - mu) N(sum_a A_a Y), then Y = N(Y~ * M).

    Each round ends on the candidates, so every row stays a distribution supported on its
    candidate set. A row the round would leave without mass (mu ~ 0 and neighbours whose
    labels all lie outside its candidates, or no neighbours) keeps its previous value.
    """
    y = row_normalised(initial * candidates)
    for _ in range(iterations):
        neighbours = sum((a @ y for a in adjacencies), torch.zeros_like(y))
        projected = (mu * y + (1 - mu) * row_normalised(neighbours)) * candidates
        empty = projected.sum(dim=1, keepdim=True) < EMPTY_ROW_MASS
        y = row_normalised(torch.where(empty, y, projected))
    return y
