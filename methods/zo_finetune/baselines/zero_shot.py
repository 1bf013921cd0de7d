"""Zero-Shot and Zero-Shot-Q: the pre-trained model, and its RTN-quantized copy, prompted without training.

The paper's lower bounds (16-bit and 4-bit rows of Table 1); the same prompts and option scoring as every
fine-tuned method.
"""
from __future__ import annotations

import torch

from methods.zo_finetune.method import FineTuningMethod
from methods.zo_finetune.params import QuantizationParams
from methods.zo_finetune.quant import quantize_model


class ZeroShot(FineTuningMethod[QuantizationParams]):
    trains = False

    @property
    def memory_method(self) -> str:
        return "zero_shot_q" if self.params.quantized else "zero_shot"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        p = self.params
        return quantize_model(model, p.bits, p.group_size) if p.quantized else model
