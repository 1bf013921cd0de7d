"""QZO (Shang et al., ICLR 2026): zeroth-order fine-tuning of a quantized model's scales, with DDC.

Spec `shared/papers/qzo.md`. The model's linear layers are quantized (GPTQ format, RTN here; 4-bit with
groups of 128, or 2-bit with one scale per output channel, the analogue of the paper's AQLM channel scales)
and only the scales are perturbed and updated: +eps, -2eps, +eps along a seeded z, d = (L+ - L-) / (2 eps)
clipped to [-C, C], scales <- max(scales - lr d z, floor). Defaults are the paper's: eps 1e-3, C 100, batch
16, fp16 scales, the code's floor of 1e-7 (the paper writes 0). `train_unquantized` adds the embeddings,
norms and lm_head to the same SPSA step, as the 2-bit runs do (code: they come first in the RNG stream).
"""
from __future__ import annotations


import torch

from methods.zo_finetune.method import Adaptation, FineTuningMethod, zeroth_order
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.params import QZOParams
from methods.zo_finetune.quant import quantize_model, scale_parameters
from methods.zo_finetune.zo import ZerothOrderOptimizer

SCALE_DTYPES = {"float16": torch.float16, "float32": torch.float32, "bfloat16": torch.bfloat16}  # QZOParams' names


class QZO(FineTuningMethod[QZOParams]):
    """Quantized zeroth-order optimization: SPSA on the quantization scales, clipped directional derivative."""

    memory_method = "qzo"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        p = self.params
        return quantize_model(model, p.bits, p.group_size, SCALE_DTYPES[p.scales_dtype])

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        p = self.params
        scales = scale_parameters(model)
        others = unquantized_parameters(model) if p.train_unquantized else []
        optimizer = ZerothOrderOptimizer(
            [*others, *scales], learning_rate, p.eps, p.clip,
            floors=[None] * len(others) + [p.floor] * len(scales), seed=seed)
        return zeroth_order(optimizer, model, scorer, train)


def unquantized_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """Embeddings, norms and the output head: what a quantized model keeps in floating point (ties once)."""
    scales = {id(scale) for scale in scale_parameters(model)}
    unique = {id(param): param for param in model.parameters()}  # tied weights once
    return [param for key, param in unique.items() if key not in scales and param.dtype.is_floating_point]
