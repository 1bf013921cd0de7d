"""USplat4D's key-node graph (arXiv 2510.12768, Eq. 7-8): the least uncertain Gaussians are key nodes; key-key
edges join each key to its k nearest keys at its own most reliable frame under the Mahalanobis distance of
Eq. 6's U (we use U's shape alone, diag(1, 1, r_z) in the camera frame, so a neighbour offset along the
ambiguous depth axis counts r_z times less; the spec does not say how u scales it); each non-key Gaussian
follows its nearest keys over the whole sequence (mean distance along the pretrained trajectories).
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


def key_nodes(u: torch.Tensor, share: float) -> torch.Tensor:
    """The `share` of Gaussians with the least mean uncertainty (at least one)."""
    count = max(1, round(share * u.numel()))
    return torch.sort(torch.argsort(u, stable=True)[:count]).values


def _metric(uncertainty: Uncertainty, weighted: bool) -> torch.Tensor:
    """(T, N, 3, 3) the shape of U^-1 (normalised by u), or the identity for the Euclidean ablation."""
    inverse = uncertainty.inverse * uncertainty.u[..., None, None]
    return inverse if weighted else torch.eye(3, dtype=inverse.dtype).expand_as(inverse)


def build_graph(pretrained: torch.Tensor, uncertainty: Uncertainty, share: float, neighbours: int,
                skinning: int, weighted: bool = True) -> KeyGraph:
    """Key nodes, their kNN edges (Eq. 7) and the non-key attachments (Eq. 8) from the pretrained motion."""
    keys = key_nodes(uncertainty.per_gaussian(), share)
    mask = torch.ones(pretrained.shape[1], dtype=torch.bool)
    mask[keys] = False
    others = torch.nonzero(mask).squeeze(1)
    reliable = uncertainty.reliable_frame()[keys]
    at_reliable = pretrained[reliable][:, keys]                      # (K, K, 3): every key at key a's frame
    offset = at_reliable - at_reliable[torch.arange(len(keys)), torch.arange(len(keys))][:, None, :]
    metric = _metric(uncertainty, weighted)[reliable, keys]         # (K, 3, 3)
    distance = torch.einsum("abi,aij,abj->ab", offset, metric, offset)
    distance.fill_diagonal_(float("inf"))
    k = min(neighbours, len(keys) - 1)
    nearest = torch.topk(distance, k, largest=False).indices if k > 0 else torch.empty(len(keys), 0).long()
    edges = torch.stack([torch.arange(len(keys)).repeat_interleave(k), nearest.reshape(-1)], dim=1)
    rest = offset[edges[:, 0], edges[:, 1]].norm(dim=-1)
    along = (pretrained[:, others, None, :] - pretrained[:, None, keys, :]).norm(dim=-1).mean(dim=0)
    s = min(skinning, len(keys))
    gap, attached = torch.topk(along, s, largest=False)
    blend = 1.0 / (gap + 1e-3)
    return KeyGraph(keys, others, edges, rest, attached, blend / blend.sum(dim=1, keepdim=True))
