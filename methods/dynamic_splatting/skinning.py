"""Non-key motion from the key nodes (USplat4D Eq. 10's role): each non-key Gaussian j, placed at its pretrained
position in its most reliable frame s_j, moves with the rigid transforms of the keys it follows,
x_{j,t} = sum_k w_jk [R_k(s_j -> t) (x_{j,s_j} - x_{k,s_j}) + x_{k,t}]. The paper blends SE(3) key transforms
by dual quaternions; ours is linear blending, and a key's rotation is not a free variable but fitted (Kabsch,
no gradient) to how its graph neighbours moved about it, so the optimised variables are key positions alone.
"""
from __future__ import annotations

import torch

from methods.dynamic_splatting.graph import KeyGraph


def key_rotations(key_positions: torch.Tensor, graph: KeyGraph) -> torch.Tensor:
    """(T, K, 3, 3) each key's rotation from frame 0 to frame t, fitted to its edges' offsets (Kabsch)."""
    with torch.no_grad():
        source, target = graph.edges[:, 0], graph.edges[:, 1]
        offsets = key_positions[:, target] - key_positions[:, source]      # (T, E, 3)
        outer = offsets[0][None, :, :, None] * offsets[:, :, None, :]       # (T, E, 3, 3): p q^T
        frames, count = key_positions.shape[0], key_positions.shape[1]
        covariance = torch.zeros(frames, count, 3, 3, dtype=key_positions.dtype)
        covariance.index_add_(1, source, outer)
        left, _, right_t = torch.linalg.svd(covariance)
        right = right_t.transpose(-1, -2)
        sign = torch.sign(torch.linalg.det(right @ left.transpose(-1, -2)))
        fix = torch.diag_embed(torch.stack([torch.ones_like(sign), torch.ones_like(sign), sign], -1))
        return right @ fix @ left.transpose(-1, -2)


def skinned(key_positions: torch.Tensor, pretrained: torch.Tensor, reliable: torch.Tensor,
            graph: KeyGraph) -> torch.Tensor:
    """(T, M, 3) the non-key positions the keys' motion implies (`reliable`: each non-key's frame s_j)."""
    rotations = key_rotations(key_positions, graph)                              # (T, K, 3, 3)
    anchor = pretrained[reliable, graph.others]                                  # (M, 3)
    keys_then = key_positions[reliable[:, None], graph.attached]                 # (M, S, 3)
    back = rotations[reliable[:, None], graph.attached].transpose(-1, -2)         # (M, S, 3, 3): s_j -> frame 0
    local = (back @ (anchor[:, None, :] - keys_then)[..., None])                 # (M, S, 3, 1)
    moved = (rotations[:, graph.attached] @ local[None]).squeeze(-1) + key_positions[:, graph.attached]
    return (graph.blend[None, :, :, None] * moved).sum(dim=2)
