"""W4A16 matmul over GPTQ-format packed weights: a Triton kernel, a CPU path, and the plain-torch reference.

Low-bit weights with 16-bit activations are how GPTQ/AWQ models run; the question a kernel answers is
whether unpacking in registers beats unpacking to memory and then multiplying (the reference).
`w4a16_matmul` picks the backend: Triton on CUDA tensors when triton is installed and bits == 4, the CPU
path on CPU tensors (never slower than the reference there, see `cpu.py`), the reference otherwise.
Triton is imported only when chosen. The format (GPTQModel's, exact zero-points) is in `packing.py`.
"""
from __future__ import annotations

import importlib.util

import torch

from .cpu import w4a16_matmul_cpu
from .packing import SUPPORTED_BITS, dequantize, pack_cols, pack_rows, unpack_cols, unpack_rows
from .quantize import quantize_rtn
from .reference import w4a16_matmul_reference

BACKENDS = ("auto", "triton", "cpu", "reference")

__all__ = [
    "BACKENDS", "SUPPORTED_BITS", "dequantize", "pack_cols", "pack_rows", "quantize_rtn", "unpack_cols",
    "unpack_rows", "w4a16_flops", "w4a16_matmul", "w4a16_matmul_cpu", "w4a16_matmul_reference",
]


def _triton_installed() -> bool:
    return importlib.util.find_spec("triton") is not None


def choose_backend(x: torch.Tensor, bits: int) -> str:
    """What `backend="auto"` runs for activations x and `bits`-bit weights."""
    if x.is_cuda and bits == 4 and _triton_installed():
        return "triton"
    return "cpu" if x.device.type == "cpu" else "reference"


def w4a16_matmul(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
                 group_size: int, bias: torch.Tensor | None = None, bits: int = 4,
                 backend: str = "auto") -> torch.Tensor:
    """y [..., out_features] = x @ W + bias in x's dtype, for x [..., in_features] and W packed as in `packing`.

    `ValueError` for an unknown or unavailable backend and for inputs that do not fit together.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "auto":
        backend = choose_backend(x, bits)
    if backend == "reference":
        return w4a16_matmul_reference(x, qweight, scales, qzeros, group_size, bias, bits)
    if backend == "cpu":
        return w4a16_matmul_cpu(x, qweight, scales, qzeros, group_size, bias, bits)
    if not _triton_installed():
        raise ValueError("backend 'triton' needs the triton package, which is not installed")
    from .triton_kernel import w4a16_matmul_triton

    return w4a16_matmul_triton(x, qweight, scales, qzeros, group_size, bias, bits)


def w4a16_flops(m: int, in_features: int, out_features: int) -> float:
    """2 · m · in · out: the matmul's multiply-adds, two FLOPs each, for m activation rows.

    Dequantization (unpack, subtract, scale: O(in · out), independent of m) and the bias add are not
    counted, so the figure is the dense matmul's and backends are compared on one scale.
    """
    return 2.0 * m * in_features * out_features
