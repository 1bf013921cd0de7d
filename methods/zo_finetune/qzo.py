"""QZO (Shang et al., ICLR 2026): zeroth-order fine-tuning of a quantized model's scales, with DDC.

Spec `shared/papers/qzo.md`. The model's linear layers are quantized (GPTQ format, RTN here; 4-bit with
groups of 128, or 2-bit with one scale per output channel, the analogue of the paper's AQLM channel scales)
and only the scales are perturbed and updated: +eps, -2eps, +eps along a seeded z, d = (L+ - L-) / (2 eps)
clipped to [-C, C], scales <- max(scales - lr d z, floor). Defaults are the paper's: eps 1e-3, C 100, batch
16, fp16 scales, the code's floor of 1e-7 (the paper writes 0). `train_unquantized` adds the embeddings,
norms and lm_head to the same SPSA step, as the 2-bit runs do (code: they come first in the RNG stream).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from methods.zo_finetune.method import Adaptation, FineTuningMethod, zeroth_order
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.quant import SUPPORTED_BITS, quantize_model, scale_parameters
from methods.zo_finetune.zo import ZerothOrderOptimizer

SCALE_DTYPES = {"float16": torch.float16, "float32": torch.float32, "bfloat16": torch.bfloat16}


def dtype_named(name: str) -> torch.dtype:
    if name not in SCALE_DTYPES:
        raise ValueError(f"scales_dtype must be one of {sorted(SCALE_DTYPES)}, got {name!r}")
    return SCALE_DTYPES[name]


class QZO(FineTuningMethod):
    """Quantized zeroth-order optimization: SPSA on the quantization scales, clipped directional derivative."""

    memory_method = "qzo"

    def __init__(self, learning_rate: float | Sequence[float] = 1e-7, steps: int = 1000, batch_size: int = 16,
                 eval_steps: int = 100, eps: float = 1e-3, clip: float | None = 100.0, bits: int = 4,
                 group_size: int | None = 128, scales_dtype: str = "float16", floor: float = 1e-7,
                 train_unquantized: bool = False) -> None:
        super().__init__(learning_rate, steps, batch_size, eval_steps)
        if not eps > 0:
            raise ValueError(f"eps must be > 0, got {eps!r} (the paper uses 1e-3)")
        if clip is not None and not clip > 0:
            raise ValueError(f"clip (C) must be > 0, or null to switch clipping off; got {clip!r}")
        self.eps, self.clip, self.bits, self.group_size = eps, clip, bits, group_size
        if bits not in SUPPORTED_BITS:
            raise ValueError(f"bits must be one of {SUPPORTED_BITS}, got {bits!r}")
        self.scales_dtype, self.floor, self.train_unquantized = dtype_named(scales_dtype), floor, train_unquantized

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return quantize_model(model, self.bits, self.group_size, self.scales_dtype)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        scales = scale_parameters(model)
        others = unquantized_parameters(model) if self.train_unquantized else []
        optimizer = ZerothOrderOptimizer(
            [*others, *scales], learning_rate, self.eps, self.clip,
            floors=[None] * len(others) + [self.floor] * len(scales), seed=seed)
        return zeroth_order(optimizer, model, scorer, train)


def unquantized_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """Embeddings, norms and the output head: what a quantized model keeps in floating point (ties once)."""
    scales = {id(scale) for scale in scale_parameters(model)}
    unique = {id(param): param for param in model.parameters()}  # tied weights once
    return [param for key, param in unique.items() if key not in scales and param.dtype.is_floating_point]
