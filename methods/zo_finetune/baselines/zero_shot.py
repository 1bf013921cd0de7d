"""Zero-Shot and Zero-Shot-Q: the pre-trained model, and its RTN-quantized copy, prompted without training.

The paper's lower bounds (16-bit and 4-bit rows of Table 1); the same prompts and option scoring as every
fine-tuned method.
"""
from __future__ import annotations

import torch

from methods.zo_finetune.method import FineTuningMethod
from methods.zo_finetune.quant import quantize_model


class ZeroShot(FineTuningMethod):
    trains = False

    def __init__(self, quantized: bool = False, bits: int = 4, group_size: int | None = 128) -> None:
        super().__init__()
        self.quantized, self.bits, self.group_size = quantized, bits, group_size

    @property
    def memory_method(self) -> str:
        return "zero_shot_q" if self.quantized else "zero_shot"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return quantize_model(model, self.bits, self.group_size) if self.quantized else model
