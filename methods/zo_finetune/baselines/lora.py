"""LoRA (Hu et al., 2022) and QLoRA (Dettmers et al., 2023) through `peft`: QZO's App. D baselines.

Rank 8, alpha 16, on q_proj and v_proj, trained with AdamW, as the paper's QLoRA row. QLoRA puts the adapters
on the 4-bit base (`quant.QuantLinear`, registered with peft as a custom module wrapped by peft's own GPTQ
LoRA layer, which adds the adapter's output to the quantized layer's); the paper's QLoRA uses NF4 from
bitsandbytes, which has no CPU kernels here, so this is LoRA on the same GPTQ-format base QZO tunes.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import torch

from methods.zo_finetune.baselines.finetune import backprop
from methods.zo_finetune.method import Adaptation, FineTuningMethod
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.quant import QuantLinear, quantize_model


class LoRA(FineTuningMethod):
    def __init__(self, learning_rate: float | Sequence[float] = 1e-4, steps: int = 1000, batch_size: int = 16,
                 eval_steps: int = 100, rank: int = 8, alpha: int = 16,
                 target_modules: Sequence[str] = ("q_proj", "v_proj"), quantized: bool = False, bits: int = 4,
                 group_size: int = 128) -> None:
        super().__init__(learning_rate, steps, batch_size, eval_steps)
        if not isinstance(rank, int) or rank < 1:
            raise ValueError(f"rank must be a positive integer, got {rank!r}")
        self.rank, self.alpha, self.target_modules = rank, alpha, list(target_modules)
        self.quantized, self.bits, self.group_size = quantized, bits, group_size

    @property
    def memory_method(self) -> str:
        return "qlora" if self.quantized else "lora"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        from peft import LoraConfig, get_peft_model
        from peft.tuners.lora.gptq import GPTQLoraLinear

        if self.quantized:
            model = quantize_model(model, self.bits, self.group_size)
        config = LoraConfig(r=self.rank, lora_alpha=self.alpha, target_modules=self.target_modules, lora_dropout=0.0)
        config._register_custom_module({QuantLinear: GPTQLoraLinear})
        with warnings.catch_warnings():  # peft warns on any layer class it does not know, ours included
            warnings.filterwarnings("ignore", message="Unsupported layer type", category=UserWarning)
            return get_peft_model(model, config)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        params = [p for p in model.parameters() if p.requires_grad]
        return backprop(model, scorer, train, torch.optim.AdamW(params, lr=learning_rate), self.steps)
