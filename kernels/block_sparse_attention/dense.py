"""Dense causal attention through torch's SDPA: the baseline sparse attention is timed against, and the oracle."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def dense_causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                           scale: float | None = None) -> torch.Tensor:
    """Causal softmax(scale · Q Kᵀ) V with grouped-query heads, computed in float32, returned in Q's dtype.

    Q is [Hq, N, d], K and V [Hkv, N, d]. The batch dimension is added because SDPA's fused CPU
    kernel takes 4-D inputs only; 3-D ones fall back to the math path, which materialises N x N.
    """
    out = F.scaled_dot_product_attention(q.float()[None], k.float()[None], v.float()[None], is_causal=True,
                                         scale=scale, enable_gqa=q.shape[0] != k.shape[0])
    return out[0].to(q.dtype)
