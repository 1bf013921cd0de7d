"""Block-sparse causal attention in Triton: one program per (query head, query block).

Each program keeps its query tile in registers and walks its CSR row's active key blocks with an
online softmax (FlashAttention's recurrence, fp32 accumulators, base-2 exponent with log2(e)
folded into the scale), as FlexPrefill's kernel does. The causal mask is applied on the diagonal
block only, the one block where a key can follow its query. Bounds masks cover a ragged last
block and a head dimension padded to a power of two (tl.arange needs one, d = 48 does not).

Imported only when used: the package works without triton. Under TRITON_INTERPRET=1 (read by
triton when this module is imported) the kernel runs on CPU tensors, which is how the tests run it.
"""
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from kernels.block_layout import BlockLayout
from kernels.block_sparse_attention.inputs import check_inputs

INTERPRETED = triton.knobs.runtime.interpret


@triton.jit
def _block_sparse_attention_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, row_ptr, col_idx, qk_scale, seq_len, num_blocks, group_size,
    q_head_stride, q_seq_stride, k_head_stride, k_seq_stride, v_head_stride, v_seq_stride,
    out_head_stride, out_seq_stride,
    HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr, DIM_PAD: tl.constexpr, PRECISION: tl.constexpr,
):
    head = tl.program_id(0)
    query_block = tl.program_id(1)
    kv_head = head // group_size
    # Head offsets in int64: Hq·N·d passes 2^31 at a few million tokens.
    q_ptr += head.to(tl.int64) * q_head_stride
    out_ptr += head.to(tl.int64) * out_head_stride
    k_ptr += kv_head.to(tl.int64) * k_head_stride
    v_ptr += kv_head.to(tl.int64) * v_head_stride
    queries = query_block * BLOCK + tl.arange(0, BLOCK)
    within_block = tl.arange(0, BLOCK)
    dims = tl.arange(0, DIM_PAD)
    dim_ok = dims[None, :] < HEAD_DIM

    q = tl.load(q_ptr + queries[:, None] * q_seq_stride + dims[None, :],
                mask=(queries[:, None] < seq_len) & dim_ok, other=0.0)
    row_max = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    row_sum = tl.zeros([BLOCK], dtype=tl.float32)
    acc = tl.zeros([BLOCK, DIM_PAD], dtype=tl.float32)

    row = head * num_blocks + query_block
    for entry in range(tl.load(row_ptr + row), tl.load(row_ptr + row + 1)):
        key_block = tl.load(col_idx + entry)
        keys = key_block * BLOCK + within_block
        key_ok = (keys[:, None] < seq_len) & dim_ok
        k = tl.load(k_ptr + keys[:, None] * k_seq_stride + dims[None, :],
                    mask=key_ok, other=0.0)
        scores = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
        if key_block == query_block:
            # Also masks the zero-loaded keys past N: on the last block they follow every real query.
            scores = tl.where(keys[None, :] <= queries[:, None], scores, float("-inf"))
        # Every row's first block has a key at or before its query, so new_max is finite from then on.
        new_max = tl.maximum(row_max, tl.max(scores, axis=1))
        probs = tl.math.exp2(scores - new_max[:, None])
        correction = tl.math.exp2(row_max - new_max)
        row_sum = row_sum * correction + tl.sum(probs, axis=1)
        v = tl.load(v_ptr + keys[:, None] * v_seq_stride + dims[None, :],
                    mask=key_ok, other=0.0)
        acc = acc * correction[:, None] + tl.dot(probs.to(v.dtype), v, input_precision=PRECISION)
        row_max = new_max

    out = acc / row_sum[:, None]
    tl.store(out_ptr + queries[:, None] * out_seq_stride + dims[None, :],
             out.to(out_ptr.dtype.element_ty), mask=(queries[:, None] < seq_len) & dim_ok)


def block_sparse_attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: BlockLayout,
                                  scale: float | None = None) -> torch.Tensor:
    """The Triton backend of `block_sparse_attention`: same semantics as the reference, on CUDA tensors
    (or CPU ones under TRITON_INTERPRET=1). Needs a power-of-two block size of at least 16 (tl.dot's minimum)."""
    check_inputs(q, k, v, layout)
    if q.device.type != "cuda" and not INTERPRETED:
        raise ValueError(f"the Triton backend runs on CUDA tensors (or on CPU under TRITON_INTERPRET=1); "
                         f"got {q.device} tensors")
    block = layout.block_size
    if block < 16 or block & (block - 1):
        raise ValueError(f"the Triton backend needs a power-of-two block size of at least 16; got {block}")
    q_heads, seq_len, dim = q.shape
    q, k, v = (x if x.stride(-1) == 1 else x.contiguous() for x in (q, k, v))
    out = torch.empty_like(q)
    scale = dim**-0.5 if scale is None else scale
    # tf32 would cost fp32 inputs about three digits; half-precision inputs ignore the setting.
    # fp32 tiles take twice the shared memory, so they get one pipeline stage instead of three.
    fp32 = q.dtype == torch.float32
    _block_sparse_attention_kernel[(q_heads, layout.num_blocks)](
        q, k, v, out, layout.row_ptr, layout.col_idx, scale * math.log2(math.e), seq_len, layout.num_blocks,
        q_heads // k.shape[0],
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1), out.stride(0), out.stride(1),
        HEAD_DIM=dim, BLOCK=block, DIM_PAD=max(16, triton.next_power_of_2(dim)),
        PRECISION="ieee" if fp32 else "tf32", num_warps=4 if block <= 64 else 8, num_stages=1 if fp32 else 3,
    )
    return out
