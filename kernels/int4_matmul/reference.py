"""W4A16 matmul in plain torch: dequantize the whole weight, then one dense matmul.

The semantics every backend must match, and the baseline the benchmarks compare against: it is what
a model does when it simply unpacks GPTQ weights before running them.
"""
from __future__ import annotations

import torch

from .packing import check_quantized, dequantize


def check_activations(x: torch.Tensor, bias: torch.Tensor | None, in_features: int, out_features: int,
                      weight_device: torch.device) -> None:
    """`ValueError` unless x is floating [..., in_features] and bias (if any) is [out_features], all on one device."""
    if not x.dtype.is_floating_point or x.dim() < 1:
        raise ValueError(f"x must be a floating tensor [..., in_features], got {x.dim()}-D {x.dtype}")
    if x.shape[-1] != in_features:
        raise ValueError(f"x has {x.shape[-1]} features in its last dimension, the weight expects {in_features}")
    if bias is not None and tuple(bias.shape) != (out_features,):
        raise ValueError(f"bias must be [out_features] = [{out_features}], got {list(bias.shape)}")
    devices = {x.device, weight_device} | ({bias.device} if bias is not None else set())
    if len(devices) > 1:
        raise ValueError(f"x, the quantized weight and bias must be on one device; got {sorted(map(str, devices))}")


def w4a16_matmul_reference(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
                           group_size: int, bias: torch.Tensor | None = None, bits: int = 4) -> torch.Tensor:
    """y [..., out_features] = x @ dequantize(...) + bias in x's dtype, for x [..., in_features]."""
    in_features, out_features, _ = check_quantized(qweight, scales, qzeros, group_size, bits)
    check_activations(x, bias, in_features, out_features, qweight.device)
    y = x @ dequantize(qweight, scales, qzeros, group_size, bits, dtype=x.dtype)
    return y if bias is None else y + bias.to(x.dtype)
