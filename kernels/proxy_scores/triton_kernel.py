"""ProxyAttn's block scores as one fused Triton kernel: no [Ns, Ns] probability matrix ever reaches memory.

Grid (groups, nb). The program of query block m holds its B/s strided query rows; pass 1 runs over
key tiles 0..m keeping each row's running max and sum of exp (online softmax, base 2, as FlexPrefill's
kernel does); pass 2 recomputes the probabilities of each tile with those final statistics and writes
the tile's reduction to A[j, m, n]. The diagonal tile gets the causal mask; ragged Ns, a head_dim
that is not a power of two and B/s < 16 (tl.dot's minimum) are handled by masked loads and padded rows
that contribute nothing. Semantics: `reference.proxy_block_scores_reference`.
"""
from __future__ import annotations

import math

import torch

from .reference import check_proxy_inputs

try:
    import triton
    import triton.language as tl
except ImportError:  # the package still imports; the dispatcher then uses the reference
    triton = None

TRITON_AVAILABLE = triton is not None

if TRITON_AVAILABLE:

    @triton.jit
    def _tile_logits(q, k_ptr, group, n, q_rows, local, dims, stride_kg, stride_kn, stride_kd,
                     ns, head_dim, rows, scale_log2):
        """log2-scaled logits of key tile n, -inf where a key is padding or after the query (causal)."""
        k_rows = n * rows + local
        k_valid = (local < rows) & (k_rows < ns)
        k_t = tl.load(k_ptr + group * stride_kg + k_rows[None, :] * stride_kn + dims[:, None] * stride_kd,
                      mask=k_valid[None, :] & (dims[:, None] < head_dim), other=0.0)
        # "ieee" keeps fp32 inputs exact (no tf32); fp16/bf16 products are exact in the fp32 accumulator anyway
        logits = tl.dot(q, k_t, input_precision="ieee") * scale_log2
        allowed = k_valid[None, :] & (k_rows[None, :] <= q_rows[:, None])
        return tl.where(allowed, logits, float("-inf"))

    @triton.jit
    def _proxy_block_scores_kernel(
        q_ptr, k_ptr, out_ptr,
        stride_qg, stride_qn, stride_qd,
        stride_kg, stride_kn, stride_kd,
        stride_og, stride_om, stride_on,
        ns, head_dim, rows, scale_log2,
        BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr, MAX_MEAN: tl.constexpr,
    ):
        group = tl.program_id(0)
        m = tl.program_id(1)
        local = tl.arange(0, BLOCK_R)
        dims = tl.arange(0, BLOCK_D)
        q_rows = m * rows + local
        q_valid = (local < rows) & (q_rows < ns)
        q = tl.load(q_ptr + group * stride_qg + q_rows[:, None] * stride_qn + dims[None, :] * stride_qd,
                    mask=q_valid[:, None] & (dims[None, :] < head_dim), other=0.0)

        row_max = tl.full([BLOCK_R], float("-inf"), dtype=tl.float32)
        row_sum = tl.zeros([BLOCK_R], dtype=tl.float32)
        for n in range(0, m + 1):
            logits = _tile_logits(q, k_ptr, group, n, q_rows, local, dims, stride_kg, stride_kn, stride_kd,
                                  ns, head_dim, rows, scale_log2)
            new_max = tl.maximum(row_max, tl.max(logits, axis=1))
            row_sum = row_sum * tl.exp2(row_max - new_max) + tl.sum(tl.exp2(logits - new_max[:, None]), axis=1)
            row_max = new_max

        # padded rows see key 0 at least, so row_sum > 0 everywhere and this never divides by zero
        inv_sum = 1.0 / row_sum
        valid_count = tl.sum(q_valid.to(tl.float32), axis=0)
        for n in range(0, m + 1):
            logits = _tile_logits(q, k_ptr, group, n, q_rows, local, dims, stride_kg, stride_kn, stride_kd,
                                  ns, head_dim, rows, scale_log2)
            probs = tl.exp2(logits - row_max[:, None]) * inv_sum[:, None]
            key_max = tl.where(q_valid, tl.max(probs, axis=1), 0.0)  # probabilities are >= 0: 0 is neutral
            if MAX_MEAN:
                tile = tl.sum(key_max, axis=0) / valid_count
            else:
                tile = tl.max(key_max, axis=0)
            tl.store(out_ptr + group * stride_og + m * stride_om + n * stride_on, tile)


def proxy_block_scores_triton(q_pooled: torch.Tensor, k_pooled: torch.Tensor, seq_len: int, block_size: int,
                              stride: int, scale: float, tile_reduce: str = "max") -> torch.Tensor:
    """A [groups, nb, nb] float32 from the fused kernel; same contract as the reference."""
    if not TRITON_AVAILABLE:
        raise RuntimeError("the triton backend needs the `triton` package; install it or use backend='reference'")
    check_proxy_inputs(q_pooled, k_pooled, seq_len, block_size, stride, tile_reduce)
    groups, ns, head_dim = q_pooled.shape
    rows = block_size // stride
    nb = math.ceil(seq_len / block_size)
    scores = torch.zeros(groups, nb, nb, dtype=torch.float32, device=q_pooled.device)
    _proxy_block_scores_kernel[(groups, nb)](
        q_pooled, k_pooled, scores,
        *q_pooled.stride(), *k_pooled.stride(), *scores.stride(),
        ns, head_dim, rows, scale * math.log2(math.e),
        BLOCK_R=max(16, triton.next_power_of_2(rows)),
        BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
        MAX_MEAN=tile_reduce == "max_mean",
    )
    return scores
