"""GPTQ-format packed low-bit weights: packing, unpacking and dequantization in plain torch.

The format is GPTQModel's internal one, with zero-points stored exactly: a packed zero of 8 means 8.
It is NOT GPTQ v1's checkpoint format (AutoGPTQ, older GPTQ safetensors), which stores "zero minus one"
and adds the one back when loading; convert such a checkpoint before handing it here.

For a weight W [in_features, out_features] (y = x @ W + bias) quantized per (group of `group_size`
input rows, output column) with `bits` bits, p = 32 // bits codes share one int32:

- `qweight` int32 [in_features // p, out_features], packed along the input dimension: input row p*i + k
  sits at bits k*bits .. k*bits + bits - 1 of qweight[i, j];
- `qzeros` int32 [n_groups, out_features // p], packed along the output dimension in the same bit order;
- `scales` floating [n_groups, out_features];
- W[r, c] = scales[r // group_size, c] * (code[r, c] - zero[r // group_size, c]).

A code in the top field makes the int32 negative; unpacking shifts arithmetically, then masks, which
is right for negative words too. Act-order (`g_idx`) checkpoints are not supported: groups are the
contiguous runs of `group_size` rows.
"""
from __future__ import annotations

import torch

SUPPORTED_BITS = (2, 4, 8)


def codes_per_word(bits: int) -> int:
    """How many `bits`-bit codes one int32 holds; `ValueError` for an unsupported width."""
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    return 32 // bits


def field_shifts(bits: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """The bit offsets 0, bits, 2*bits, ... of the codes inside a word, as an int32 vector."""
    return torch.arange(0, 32, bits, dtype=torch.int32, device=device)


def _pack_dim0(codes: torch.Tensor, bits: int, what: str) -> torch.Tensor:
    """Pack codes [n, m] along dim 0 into int32 [n // p, m]; `what` names the tensor in errors."""
    per_word = codes_per_word(bits)
    if codes.dim() != 2 or codes.dtype.is_floating_point or codes.dtype.is_complex or codes.dtype == torch.bool:
        raise ValueError(f"{what} must be a 2-D integer tensor, got {codes.dim()}-D {codes.dtype}")
    if codes.shape[0] % per_word:
        raise ValueError(f"{what} has {codes.shape[0]} entries along the packed dimension, "
                         f"which is not divisible by {per_word} ({bits}-bit codes per int32)")
    if codes.numel() and (int(codes.min()) < 0 or int(codes.max()) >= 1 << bits):
        raise ValueError(f"{what} must lie in 0..{(1 << bits) - 1} for bits={bits}; "
                         f"got values in {int(codes.min())}..{int(codes.max())}")
    words = codes.to(torch.int64).view(codes.shape[0] // per_word, per_word, codes.shape[1])
    # disjoint bit fields: their sum is their bitwise or; int64 holds it without overflow
    packed = (words << field_shifts(bits, codes.device).to(torch.int64).view(1, -1, 1)).sum(dim=1)
    packed = torch.where(packed >= 1 << 31, packed - (1 << 32), packed)  # the int32 with these bits
    return packed.to(torch.int32)


def _unpack_dim0(packed: torch.Tensor, bits: int, what: str) -> torch.Tensor:
    """Inverse of `_pack_dim0`: int32 [n, m] to uint8 codes [n * p, m]."""
    per_word = codes_per_word(bits)
    if packed.dim() != 2 or packed.dtype != torch.int32:
        raise ValueError(f"{what} must be a 2-D int32 tensor, got {packed.dim()}-D {packed.dtype}")
    shifts = field_shifts(bits, packed.device).view(1, -1, 1)
    codes = (packed.unsqueeze(1) >> shifts).bitwise_and_((1 << bits) - 1)
    return codes.reshape(packed.shape[0] * per_word, packed.shape[1]).to(torch.uint8)


def pack_rows(codes: torch.Tensor, bits: int) -> torch.Tensor:
    """`qweight` from weight codes [in_features, out_features] in 0..2**bits - 1: int32 [in // p, out]."""
    return _pack_dim0(codes, bits, "codes")


def unpack_rows(qweight: torch.Tensor, bits: int) -> torch.Tensor:
    """The weight codes, uint8 [in_features, out_features], of a `qweight` int32 [in // p, out]."""
    return _unpack_dim0(qweight, bits, "qweight")


def pack_cols(zeros: torch.Tensor, bits: int) -> torch.Tensor:
    """`qzeros` from zero-points [n_groups, out_features] in 0..2**bits - 1: int32 [n_groups, out // p]."""
    if zeros.dim() != 2:
        raise ValueError(f"zeros must be a 2-D integer tensor, got {zeros.dim()}-D {zeros.dtype}")
    return _pack_dim0(zeros.t(), bits, "zeros").t().contiguous()


def unpack_cols(qzeros: torch.Tensor, bits: int) -> torch.Tensor:
    """The zero-points, uint8 [n_groups, out_features], of a `qzeros` int32 [n_groups, out // p]."""
    if qzeros.dim() != 2:
        raise ValueError(f"qzeros must be a 2-D int32 tensor, got {qzeros.dim()}-D {qzeros.dtype}")
    return _unpack_dim0(qzeros.t(), bits, "qzeros").t().contiguous()


def check_quantized(qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor, group_size: int,
                    bits: int) -> tuple[int, int, int]:
    """(in_features, out_features, n_groups) of a consistent quantized weight; else `ValueError` naming
    the first broken requirement. Every backend calls this before computing."""
    per_word = codes_per_word(bits)
    if qweight.dim() != 2 or qweight.dtype != torch.int32:
        raise ValueError(f"qweight must be a 2-D int32 tensor, got {qweight.dim()}-D {qweight.dtype}")
    in_features, out_features = qweight.shape[0] * per_word, qweight.shape[1]
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be a positive int, got {group_size!r}")
    if in_features % group_size:
        raise ValueError(f"group_size {group_size} does not divide in_features {in_features}")
    n_groups = in_features // group_size
    if not scales.dtype.is_floating_point:
        raise ValueError(f"scales must be floating (fp16, bf16 or fp32), got {scales.dtype}")
    if tuple(scales.shape) != (n_groups, out_features):
        raise ValueError(f"scales must be [n_groups, out_features] = [{n_groups}, {out_features}] "
                         f"for in_features {in_features} and group_size {group_size}; got {list(scales.shape)}")
    if out_features % per_word:
        raise ValueError(f"out_features {out_features} is not divisible by {per_word}, "
                         f"so qzeros cannot pack whole words of {bits}-bit zero-points")
    if qzeros.dtype != torch.int32 or tuple(qzeros.shape) != (n_groups, out_features // per_word):
        raise ValueError(f"qzeros must be int32 [n_groups, out_features // {per_word}] = "
                         f"[{n_groups}, {out_features // per_word}]; got {list(qzeros.shape)} {qzeros.dtype}")
    if not qweight.device == scales.device == qzeros.device:
        raise ValueError(f"qweight, scales and qzeros must be on one device; "
                         f"got {qweight.device}, {scales.device} and {qzeros.device}")
    return in_features, out_features, n_groups


def dequantize(qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor, group_size: int, bits: int = 4,
               dtype: torch.dtype | None = None) -> torch.Tensor:
    """W [in_features, out_features] = scales * (code - zero), in `dtype` (default: scales' dtype).

    Computed in fp32 and rounded once to `dtype`: (code - zero) is an exact small integer, so this
    equals computing in `dtype` itself, and every backend sees the same W.
    """
    in_features, out_features, n_groups = check_quantized(qweight, scales, qzeros, group_size, bits)
    codes = unpack_rows(qweight, bits).view(n_groups, group_size, out_features).float()
    zeros = unpack_cols(qzeros, bits).float().unsqueeze(1)
    weight = (codes - zeros) * scales.float().unsqueeze(1)
    return weight.view(in_features, out_features).to(dtype or scales.dtype)
