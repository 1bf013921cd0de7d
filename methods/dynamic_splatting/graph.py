"""USplat4D's key-node graph (arXiv 2510.12768, Eq. 7-8): the least uncertain Gaussians are key nodes; key-key
edges join each key to its k nearest keys at its own most reliable frame under the Mahalanobis distance of
Eq. 6's U (we use U's shape alone, diag(1, 1, r_z) in the camera frame, so a neighbour offset along the
ambiguous depth axis counts r_z times less; the spec does not say how u scales it); each non-key Gaussian
follows its nearest keys over the whole sequence (mean distance along the pretrained trajectories).

Segment-aware variant (`segments` given): the spec's graph ignores objects, so a non-key near a joint can follow
another segment's keys (issue 61 found 23 % of the articulated scene's moving non-keys with over a quarter of
their weight there). With the canonical model's segment labels, keys are chosen per segment (the same share, at
least one each), key-key edges and non-key attachments only join Gaussians of one segment: a graph whose every
edge lies inside one rigid part, so no skinning weight crosses segments.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from methods.dynamic_splatting.uncertainty import Uncertainty


@dataclass(frozen=True)
class KeyGraph:
    keys: torch.Tensor       # (K,) Gaussian indices of the key nodes
    others: torch.Tensor     # (M,) the non-key Gaussians
    edges: torch.Tensor      # (E, 2) key-key edges, as positions in `keys`
    rest: torch.Tensor       # (E,) edge lengths at the first key's most reliable frame (pretrained motion)
    attached: torch.Tensor   # (M, S) each non-key's keys, as positions in `keys`
    blend: torch.Tensor      # (M, S) their blending weights, rows summing to 1


def key_nodes(u: torch.Tensor, share: float, segments: torch.Tensor | None = None) -> torch.Tensor:
    """The `share` of Gaussians with the least mean uncertainty (at least one), or that share of each segment."""
    if segments is None:
        count = max(1, round(share * u.numel()))
        return torch.sort(torch.argsort(u, stable=True)[:count]).values
    chosen = [members[key_nodes(u[members], share)] for members in
              (torch.nonzero(segments == label).squeeze(1) for label in torch.unique(segments))]
    return torch.sort(torch.cat(chosen)).values


def _metric(uncertainty: Uncertainty, weighted: bool) -> torch.Tensor:
    """(T, N, 3, 3) the shape of U^-1 (normalised by u), or the identity for the Euclidean ablation."""
    inverse = uncertainty.inverse * uncertainty.u[..., None, None]
    return inverse if weighted else torch.eye(3, dtype=inverse.dtype).expand_as(inverse)


def build_graph(pretrained: torch.Tensor, uncertainty: Uncertainty, share: float, neighbours: int,
                skinning: int, weighted: bool = True, segments: torch.Tensor | None = None) -> KeyGraph:
    """Key nodes, their kNN edges (Eq. 7) and the non-key attachments (Eq. 8) from the pretrained motion;
    with `segments` (N,) every key, edge and attachment stays inside one segment."""
    keys = key_nodes(uncertainty.per_gaussian(), share, segments)
    mask = torch.ones(pretrained.shape[1], dtype=torch.bool)
    mask[keys] = False
    others = torch.nonzero(mask).squeeze(1)
    reliable = uncertainty.reliable_frame()[keys]
    at_reliable = pretrained[reliable][:, keys]                      # (K, K, 3): every key at key a's frame
    offset = at_reliable - at_reliable[torch.arange(len(keys)), torch.arange(len(keys))][:, None, :]
    metric = _metric(uncertainty, weighted)[reliable, keys]         # (K, 3, 3)
    distance = torch.einsum("abi,aij,abj->ab", offset, metric, offset)
    distance.fill_diagonal_(float("inf"))
    along = (pretrained[:, others, None, :] - pretrained[:, None, keys, :]).norm(dim=-1).mean(dim=0)
    if segments is not None:  # an infinite distance is never an edge and weighs 1 / inf = 0 in the blend
        distance = distance.masked_fill(segments[keys][:, None] != segments[keys][None, :], float("inf"))
        along = along.masked_fill(segments[others][:, None] != segments[keys][None, :], float("inf"))
    k = max(0, min(neighbours, len(keys) - 1))
    nearest = torch.topk(distance, k, largest=False)
    edges = torch.stack([torch.arange(len(keys)).repeat_interleave(k), nearest.indices.reshape(-1)], dim=1)
    edges = edges[torch.isfinite(nearest.values.reshape(-1))]
    rest = offset[edges[:, 0], edges[:, 1]].norm(dim=-1)
    s = min(skinning, len(keys))
    gap, attached = torch.topk(along, s, largest=False)
    blend = 1.0 / (gap + 1e-3)
    return KeyGraph(keys, others, edges, rest, attached, blend / blend.sum(dim=1, keepdim=True))


def cross_segment_weight(graph: KeyGraph, segments: torch.Tensor) -> torch.Tensor:
    """(M,) the share of each non-key's skinning weight on keys of another segment than its own."""
    foreign = segments[graph.keys][graph.attached] != segments[graph.others][:, None]
    return (graph.blend * foreign).sum(dim=1)
