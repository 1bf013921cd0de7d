"""GPTQ-format quantized linear layers and round-to-nearest quantization of a Hugging Face model.

QZO (spec `shared/papers/qzo.md`) fine-tunes the fp16 scales of GPTQ-quantized linears, W = scale * (q - z)
per (input group, output channel), with the integer codes q and zero-points z frozen; the embeddings and
lm_head stay unquantized (which is what reproduces the paper's Table 2 scale counts). The layout is
GPTQModel's (`kernels.int4_matmul`). Quantization here is round-to-nearest (RTN), asymmetric, per group;
the Hessian-based GPTQ algorithm is not implemented: RTN is what the spec's small-scale plan prescribes and
what any later GPTQ pass would start from. 2-bit "channel-scale" quantization (QZO's 2-bit experiment trains
AQLM's per-output-channel scales) is RTN at 2 bits with one group spanning all inputs.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import get_args

import torch
from torch import nn

from kernels.int4_matmul import dequantize, quantize_rtn, w4a16_matmul
from methods.zo_finetune.params import Bits

SUPPORTED_BITS: tuple[int, ...] = get_args(Bits)


class QuantLinear(nn.Module):
    """y = x @ (scales * (codes - zeros)) + bias, codes and zeros packed in int32, scales trainable.

    `scales` is the only parameter (requires_grad off: zeroth-order methods need no autograd); the
    codes, zero-points and bias are buffers, frozen as in the paper.
    """

    qweight: torch.Tensor  # buffers, registered in __init__
    qzeros: torch.Tensor
    bias: torch.Tensor | None

    def __init__(self, in_features: int, out_features: int, bits: int, group_size: int,
                 scales: torch.Tensor, qweight: torch.Tensor, qzeros: torch.Tensor,
                 bias: torch.Tensor | None, backend: str = "auto") -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.bits, self.group_size, self.backend = bits, group_size, backend
        self.scales = nn.Parameter(scales, requires_grad=False)
        self.register_buffer("qweight", qweight)
        self.register_buffer("qzeros", qzeros)
        self.register_buffer("bias", bias)

    @classmethod
    def from_linear(cls, linear: nn.Linear, bits: int = 4, group_size: int = 128,
                    scales_dtype: torch.dtype = torch.float16, name: str = "linear") -> "QuantLinear":
        """RTN-quantize `linear` (asymmetric, per (group, output channel)); `name` labels errors."""
        check_quantizable(name, linear, bits, group_size)
        qweight, scales, qzeros = quantize_rtn(linear.weight.detach().float().T, group_size, bits, scales_dtype)
        bias = None if linear.bias is None else linear.bias.detach().clone()
        return cls(linear.in_features, linear.out_features, bits, group_size, scales, qweight, qzeros, bias)

    def weight_matrix(self, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """The dequantized [in, out] weight (for tests and for LoRA's merged view)."""
        return dequantize(self.qweight, self.scales, self.qzeros, self.group_size, bits=self.bits, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return w4a16_matmul(x, self.qweight, self.scales.to(x.dtype), self.qzeros, self.group_size,
                            bias=None if self.bias is None else self.bias.to(x.dtype), bits=self.bits,
                            backend=self.backend)

    def extra_repr(self) -> str:
        return f"in={self.in_features}, out={self.out_features}, bits={self.bits}, group_size={self.group_size}"


def check_quantizable(name: str, linear: nn.Module, bits: int, group_size: int) -> nn.Linear:
    """`linear` as the Linear it must be, or a `ValueError` naming the layer when it cannot be quantized as asked."""
    if bits not in SUPPORTED_BITS:
        raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
    if not isinstance(linear, nn.Linear):
        raise ValueError(f"layer '{name}' is a {type(linear).__name__}; only torch.nn.Linear layers are quantized "
                         "(GPT-2's Conv1D and convolutions are not supported)")
    if not isinstance(group_size, int) or group_size <= 0 or linear.in_features % group_size:
        raise ValueError(f"group size {group_size!r} does not divide layer '{name}''s in_features "
                         f"({linear.in_features}); pick a divisor, e.g. {_largest_divisor(linear.in_features, 128)}")
    if (linear.in_features * bits) % 32 or (linear.out_features * bits) % 32:
        raise ValueError(f"layer '{name}' is {linear.in_features}x{linear.out_features}; {bits}-bit packing needs "
                         f"both multiples of {32 // bits}")
    return linear


def _largest_divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


_UNSUPPORTED = ("Conv1D", "Conv1d", "Conv2d", "Conv3d")


def quantizable_layers(model: nn.Module, skip: tuple[str, ...] = ("lm_head",)) -> Iterator[tuple[str, nn.Module]]:
    """The linear layers QZO quantizes: every `nn.Linear` but the output head (embeddings are not linear)."""
    for name, module in model.named_modules():
        if name.split(".")[-1] in skip:
            continue
        if isinstance(module, nn.Linear) or type(module).__name__ in _UNSUPPORTED:
            yield name, module


def quantize_model(model: nn.Module, bits: int = 4, group_size: int | None = 128,
                   scales_dtype: torch.dtype = torch.float16, skip: tuple[str, ...] = ("lm_head",)) -> nn.Module:
    """Replace each quantizable linear of `model` in place by a `QuantLinear`; returns `model`.

    `group_size=None` gives one group per output channel (the 2-bit channel-scale setting). Every layer is
    checked before any is replaced, so a bad layer leaves the model untouched.
    """
    layers = list(quantizable_layers(model, skip))
    if not layers:
        raise ValueError(f"{type(model).__name__} has no linear layers to quantize (besides {', '.join(skip)})")
    linears: list[tuple[str, nn.Linear]] = []
    for name, layer in layers:
        in_features: int = getattr(layer, "in_features", 0)  # the one group per channel of group_size=None
        linears.append((name, check_quantizable(name, layer, bits, group_size or in_features)))
    for name, linear in linears:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        quantized = QuantLinear.from_linear(linear, bits, group_size or linear.in_features, scales_dtype, name)
        setattr(parent, child, quantized.to(linear.weight.device))
    return model


def quant_layers(model: nn.Module) -> list[QuantLinear]:
    return [module for module in model.modules() if isinstance(module, QuantLinear)]


def scale_parameters(model: nn.Module) -> list[nn.Parameter]:
    """The scales QZO perturbs, in a fixed (module) order; `ValueError` when the model is not quantized."""
    scales = [layer.scales for layer in quant_layers(model)]
    if not scales:
        raise ValueError("the model has no QuantLinear layers: quantize it first (quantize_model)")
    return scales
