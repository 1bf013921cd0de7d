"""ProxyAttn's block scores (estimation step 1): the fused Triton kernel beside its plain-torch reference.

`proxy_block_scores` picks the backend; `proxy_estimation_flops` is the step's analytic cost, the
figure the paper compares with dense attention ("roughly one percent of full attention").
"""
from __future__ import annotations

import importlib.util

import torch

from .reference import proxy_block_scores_reference, strided_length

BACKENDS = ("auto", "triton", "reference")


def proxy_block_scores(q_pooled: torch.Tensor, k_pooled: torch.Tensor, seq_len: int, block_size: int, stride: int,
                       scale: float, tile_reduce: str = "max", backend: str = "auto") -> torch.Tensor:
    """A [groups, nb, nb] float32; `backend="auto"` runs Triton on CUDA when it imports, else the reference.

    Both backends check their inputs alike (`reference.check_proxy_inputs`) and raise `ValueError`.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "auto":
        use_triton = q_pooled.is_cuda and importlib.util.find_spec("triton") is not None
        backend = "triton" if use_triton else "reference"
    if backend == "reference":
        return proxy_block_scores_reference(q_pooled, k_pooled, seq_len, block_size, stride, scale, tile_reduce)
    # imported here so that importing the package never pays for (or needs) triton
    from .triton_kernel import proxy_block_scores_triton

    return proxy_block_scores_triton(q_pooled, k_pooled, seq_len, block_size, stride, scale, tile_reduce)


def proxy_estimation_flops(seq_len: int, stride: int, groups: int, head_dim: int) -> float:
    """FLOPs of the causal strided q̄ k̄ᵀ: 2 · g · d · Ns(Ns+1)/2, two FLOPs per multiply-add.

    Only the matmul is counted; the softmax's exponentials and the tile reductions are not (they are
    O(g · Ns²) without the factor d, as dense attention's softmax is left out of its count too).
    """
    ns = strided_length(seq_len, stride)
    return 2.0 * groups * head_dim * ns * (ns + 1) / 2


__all__ = ["proxy_block_scores", "proxy_block_scores_reference", "proxy_estimation_flops"]
