"""Block-sparse causal attention over a `BlockLayout`: a Triton kernel, its plain-torch reference, and
the dense SDPA baseline both are measured against.

`block_sparse_attention` picks the backend: Triton for CUDA tensors when triton is installed,
the reference otherwise (it is also the fast path on CPU). Triton is imported only when chosen.
"""
from __future__ import annotations

import importlib.util

import torch

from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention.dense import dense_causal_attention
from kernels.block_sparse_attention.reference import block_sparse_attention_reference

BACKENDS = ("auto", "reference", "triton")

__all__ = ["BACKENDS", "block_sparse_attention", "block_sparse_attention_reference", "dense_causal_attention"]


def _triton_installed() -> bool:
    return importlib.util.find_spec("triton") is not None


def block_sparse_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: BlockLayout,
                           scale: float | None = None, backend: str = "auto") -> torch.Tensor:
    """Causal attention of Q [Hq, N, d] over K, V [Hkv, N, d] restricted to `layout`'s active blocks.

    Query head h reads KV head h // (Hq / Hkv); scale defaults to 1/sqrt(d); the result has Q's dtype.
    `ValueError` for an unknown backend, an unavailable one, or inputs that disagree with the layout.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "triton" and not _triton_installed():
        raise ValueError("backend 'triton' needs the triton package, which is not installed")
    if backend == "triton" or (backend == "auto" and q.device.type == "cuda" and _triton_installed()):
        from kernels.block_sparse_attention.triton_kernel import block_sparse_attention_triton

        return block_sparse_attention_triton(q, k, v, layout, scale)
    return block_sparse_attention_reference(q, k, v, layout, scale)
