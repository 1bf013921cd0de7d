"""W4A16 matmul tuned for CPU tensors: a leaner dequantization, and no half-precision GEMM where the CPU lacks one.

Two measured costs of the reference on a 2-core AVX512-BF16 EPYC (no AVX512-FP16), one torch thread:
- its dequantization makes about six passes over W (unpack to int32, mask, uint8, float, subtract,
  multiply, round): 160 ms at 4096 x 4096, against 75-100 ms here, where one shift over a precomputed
  shift vector and an in-place mask give the codes and one `addcmul` applies scale and zero-point
  together, as codes * s + (-z * s) with -z * s precomputed per (group, column);
- its fp16 GEMM: torch has no fast fp16 matmul on such a CPU (55 s for 512 x 4096 x 4096, against
  0.3 s in fp32), so fp16 activations are multiplied in fp32 here and the result rounded to fp16 once.
  bf16 keeps its native GEMM, fp32 stays fp32.
Chunking the weight by row blocks (dequantize a block, `addmm_` it) measured no better with two threads
on a shared machine and is not done. Semantics: `reference.w4a16_matmul_reference`; for fp16 x the
weight is not rounded to fp16 first, so the two differ by that rounding (well within fp16 output precision).
"""
from __future__ import annotations

import torch

from .packing import check_quantized, field_shifts, unpack_cols
from .reference import check_activations


def _dequantize_fp32(qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor, group_size: int,
                     bits: int, in_features: int, out_features: int, n_groups: int) -> torch.Tensor:
    """W [in_features, out_features] in fp32, equal to `packing.dequantize(..., dtype=torch.float32)`."""
    shifts = field_shifts(bits, qweight.device).view(1, -1, 1)
    codes = (qweight.unsqueeze(1) >> shifts).bitwise_and_((1 << bits) - 1)  # [in // p, p, out]: row p*i + k
    weight = codes.view(n_groups, group_size, out_features).to(torch.float32)
    scale = scales.float()
    neg_zero_times_scale = unpack_cols(qzeros, bits).float().mul_(scale).neg_().unsqueeze(1)
    torch.addcmul(neg_zero_times_scale, weight, scale.unsqueeze(1), out=weight)
    return weight.view(in_features, out_features)


def w4a16_matmul_cpu(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
                     group_size: int, bias: torch.Tensor | None = None, bits: int = 4) -> torch.Tensor:
    """y [..., out_features] = x @ W + bias in x's dtype, for x [..., in_features]; plain torch, any device."""
    in_features, out_features, n_groups = check_quantized(qweight, scales, qzeros, group_size, bits)
    check_activations(x, bias, in_features, out_features, qweight.device)
    compute_dtype = torch.bfloat16 if x.dtype == torch.bfloat16 else torch.float32
    weight = _dequantize_fp32(qweight, scales, qzeros, group_size, bits, in_features, out_features, n_groups)
    rows = x.reshape(-1, in_features).to(compute_dtype)
    weight = weight.to(compute_dtype)
    if bias is None:
        y = rows @ weight
    else:
        y = torch.addmm(bias.to(compute_dtype), rows, weight)
    return y.to(x.dtype).view(*x.shape[:-1], out_features)
