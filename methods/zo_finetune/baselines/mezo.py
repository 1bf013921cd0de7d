"""MeZO (Malladi et al., NeurIPS 2023): the same two-point estimator on every weight of the unquantized model.

QZO's main baseline, run from the official code in the paper at 16 bits; here in fp32 on CPU (the tiny
models' matmuls) with MeZO's defaults: eps 1e-3, batch 16, constant learning rate, weight decay 0 and, when
set, none on biases and norms. No clipping: MeZO has none.
"""
from __future__ import annotations


import torch

from methods.zo_finetune.method import Adaptation, FineTuningMethod, zeroth_order
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.params import MeZOParams
from methods.zo_finetune.zo import ZerothOrderOptimizer


class MeZO(FineTuningMethod[MeZOParams]):
    memory_method = "mezo"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return model.requires_grad_(False)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        named = list(dict(model.named_parameters()).items())  # tied weights once
        decays = [not ("bias" in name or "norm" in name) for name, _ in named]
        params = [p for _, p in named]
        optimizer = ZerothOrderOptimizer(params, learning_rate, self.params.eps, None, self.params.weight_decay, decays,
                                         seed=seed)
        return zeroth_order(optimizer, model, scorer, train)
