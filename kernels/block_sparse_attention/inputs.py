"""What every backend accepts: Q [Hq, N, d], K and V [Hkv, N, d], and a layout of Hq heads over N.

Checked once, on tensor metadata only (no device sync), so a mismatch fails with a message that
names it instead of an index error deep inside a kernel.
"""
from __future__ import annotations

import torch

from kernels.block_layout import BlockLayout

SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def check_inputs(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: BlockLayout) -> None:
    """`ValueError` naming the first way Q, K, V and `layout` disagree with each other."""
    if q.dim() != 3 or k.dim() != 3 or v.dim() != 3:
        raise ValueError(f"Q, K, V must be [heads, N, d]; got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if k.shape != v.shape or q.shape[1:] != k.shape[1:]:
        raise ValueError(f"shapes do not agree: Q {tuple(q.shape)}, K {tuple(k.shape)}, V {tuple(v.shape)} "
                         "(K and V share a shape; Q differs from them in the head count only)")
    q_heads, seq_len, _ = q.shape
    if q_heads % k.shape[0]:
        raise ValueError(f"{q_heads} query heads are not a multiple of {k.shape[0]} KV heads (grouped-query attention)")
    if len({q.dtype, k.dtype, v.dtype}) > 1 or q.dtype not in SUPPORTED_DTYPES:
        raise ValueError(f"Q, K, V must share one dtype among float32, float16, bfloat16; "
                         f"got {q.dtype}/{k.dtype}/{v.dtype}")
    devices = {q.device, k.device, v.device, layout.row_ptr.device, layout.col_idx.device}
    if len(devices) > 1:
        raise ValueError(f"Q, K, V and the layout must share one device; got {sorted(map(str, devices))}")
    if layout.seq_len != seq_len or layout.heads != q_heads:
        raise ValueError(f"the layout covers {layout.heads} heads over N={layout.seq_len}; "
                         f"Q has {q_heads} heads over N={seq_len}")
