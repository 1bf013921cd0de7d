"""W4A16 matmul as one Triton kernel: packed int4 codes are unpacked in registers, W never reaches memory.

Grid (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)). Each program walks K in tiles of BLOCK_K rows. A tile's
[BLOCK_K, BLOCK_N] codes are gathered from qweight row k // 8 (each int32 is read by its 8 rows, from
cache after the first) and taken apart with an arithmetic shift by 4 * (k % 8) and a mask, which is right
for the negative words a top nibble makes. BLOCK_K divides group_size, so a tile lies inside one group:
its scales and zero-points are one [BLOCK_N] vector each, loaded once per tile. The tile is dequantized
in fp32 as the reference does, rounded to x's dtype (exactly the reference's W), and accumulated in
fp32 with tl.dot (fp32 inputs with input_precision="ieee": tf32 would cost them about three digits).
Bias is added to the fp32 accumulator; the output is rounded to x's dtype once.

Block sizes are fixed by a small heuristic, not autotuned: no GPU was at hand to tune them.
Only bits=4 is implemented. Imported only when used: the package works without triton. Under
TRITON_INTERPRET=1 (read by triton when this module is imported) the kernel runs on CPU tensors,
which is how the tests run it. Semantics: `reference.w4a16_matmul_reference`.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl

from .packing import check_quantized
from .reference import check_activations

INTERPRETED = triton.knobs.runtime.interpret

_TORCH_TO_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}


@triton.jit
def _w4a16_matmul_kernel(
    x_ptr, qweight_ptr, scales_ptr, qzeros_ptr, bias_ptr, out_ptr,
    m_rows, n_cols, k_features, group_size,
    stride_xm, stride_qk, stride_sg, stride_zg, stride_om,
    HAS_BIAS: tl.constexpr, DOT_DTYPE: tl.constexpr, PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    within = tl.arange(0, BLOCK_K)
    row_ok = rows < m_rows
    col_ok = cols < n_cols
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * stride_xm
    code_shift = (within % 8) * 4  # row 8i + k sits at bits 4k..4k+3
    zero_word = cols // 8
    zero_shift = (cols % 8) * 4

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, k_features, BLOCK_K):
        ks = k0 + within
        x = tl.load(x_rows + ks[None, :], mask=row_ok[:, None], other=0.0)
        words = tl.load(qweight_ptr + (ks // 8)[:, None] * stride_qk + cols[None, :], mask=col_ok[None, :], other=0)
        codes = (words >> code_shift[:, None]) & 0xF
        group = k0 // group_size  # BLOCK_K divides group_size: one group per tile
        scale = tl.load(scales_ptr + group * stride_sg + cols, mask=col_ok, other=0.0).to(tl.float32)
        zero_words = tl.load(qzeros_ptr + group * stride_zg + zero_word, mask=col_ok, other=0)
        zeros = (zero_words >> zero_shift) & 0xF
        weight = ((codes - zeros[None, :]).to(tl.float32) * scale[None, :]).to(DOT_DTYPE)
        acc = tl.dot(x.to(DOT_DTYPE), weight, acc, input_precision=PRECISION)

    if HAS_BIAS:
        acc += tl.load(bias_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)[None, :]
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * stride_om + cols[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


def _block_k(group_size: int) -> int:
    """The largest of 64, 32, 16 that divides group_size (tl.dot needs K >= 16); `ValueError` if none does."""
    for block in (64, 32, 16):
        if group_size % block == 0:
            return block
    raise ValueError(f"the Triton kernel needs group_size to be a multiple of 16, got {group_size}; "
                     f"use backend='cpu' or 'reference'")


def w4a16_matmul_triton(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
                        group_size: int, bias: torch.Tensor | None = None, bits: int = 4) -> torch.Tensor:
    """y [..., out_features] = x @ W + bias in x's dtype, on CUDA tensors (or CPU ones under TRITON_INTERPRET=1)."""
    in_features, out_features, _ = check_quantized(qweight, scales, qzeros, group_size, bits)
    if bits != 4:
        raise ValueError(f"the Triton kernel supports 4-bit; use backend='reference' (got bits={bits})")
    check_activations(x, bias, in_features, out_features, qweight.device)
    if x.device.type != "cuda" and not INTERPRETED:
        raise ValueError(f"the Triton backend runs on CUDA tensors (or on CPU under TRITON_INTERPRET=1); "
                         f"got {x.device} tensors")
    if x.dtype not in _TORCH_TO_TL:
        raise ValueError(f"the Triton kernel takes fp16, bf16 or fp32 activations, got {x.dtype}")
    block_k = _block_k(group_size)
    rows = x.reshape(-1, in_features)
    rows = rows if rows.stride(-1) == 1 else rows.contiguous()
    qweight, scales, qzeros = (t if t.stride(-1) == 1 else t.contiguous() for t in (qweight, scales, qzeros))
    m_rows = rows.shape[0]
    out = torch.empty(m_rows, out_features, dtype=x.dtype, device=x.device)
    # decode-sized batches (a few rows) get the smallest tile tl.dot takes, prefill-sized ones a square-ish one
    block_m = 16 if m_rows <= 16 else 32 if m_rows <= 32 else 64
    block_n = 64 if out_features <= 64 or m_rows <= 16 else 128
    grid = (triton.cdiv(m_rows, block_m), triton.cdiv(out_features, block_n))
    _w4a16_matmul_kernel[grid](
        rows, qweight, scales, qzeros, bias if bias is not None else out, out,
        m_rows, out_features, in_features, group_size,
        rows.stride(0), qweight.stride(0), scales.stride(0), qzeros.stride(0), out.stride(0),
        HAS_BIAS=bias is not None, DOT_DTYPE=_TORCH_TO_TL[x.dtype],
        PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
    )
    return out.view(*x.shape[:-1], out_features)
