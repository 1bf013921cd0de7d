"""LoRA (Hu et al., 2022) and QLoRA (Dettmers et al., 2023) through `peft`: QZO's App. D baselines.

Rank 8, alpha 16, on q_proj and v_proj, trained with AdamW, as the paper's QLoRA row. QLoRA puts the adapters
on the 4-bit base (`quant.QuantLinear`, registered with peft as a custom module wrapped by peft's own GPTQ
LoRA layer, which adds the adapter's output to the quantized layer's); the paper's QLoRA uses NF4 from
bitsandbytes, which has no CPU kernels here, so this is LoRA on the same GPTQ-format base QZO tunes.
"""
from __future__ import annotations

import warnings

import torch

from methods.zo_finetune.baselines.finetune import backprop
from methods.zo_finetune.method import Adaptation, FineTuningMethod
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.params import LoRAParams
from methods.zo_finetune.quant import QuantLinear, quantize_model


class LoRA(FineTuningMethod[LoRAParams]):
    @property
    def memory_method(self) -> str:
        return "qlora" if self.params.quantized else "lora"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        from peft import LoraConfig, get_peft_model
        from peft.tuners.lora.gptq import GPTQLoraLinear

        p = self.params
        if p.quantized:
            model = quantize_model(model, p.bits, p.group_size)
        config = LoraConfig(r=p.rank, lora_alpha=p.alpha, target_modules=list(p.target_modules), lora_dropout=0.0)
        config._register_custom_module({QuantLinear: GPTQLoraLinear})
        with warnings.catch_warnings():  # peft warns on any layer class it does not know, ours included
            warnings.filterwarnings("ignore", message="Unsupported layer type", category=UserWarning)
            return get_peft_model(model, config)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        params = [p for p in model.parameters() if p.requires_grad]
        return backprop(model, scorer, train, torch.optim.AdamW(params, lr=learning_rate), self.params.steps)
