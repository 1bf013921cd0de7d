"""MeZO (Malladi et al., NeurIPS 2023): the same two-point estimator on every weight of the unquantized model.

QZO's main baseline, run from the official code in the paper at 16 bits; here in fp32 on CPU (the tiny
models' matmuls) with MeZO's defaults: eps 1e-3, batch 16, constant learning rate, weight decay 0 and, when
set, none on biases and norms. No clipping: MeZO has none.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from methods.zo_finetune.method import Adaptation, FineTuningMethod, zeroth_order
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.zo import ZerothOrderOptimizer


class MeZO(FineTuningMethod):
    def __init__(self, learning_rate: float | Sequence[float] = 1e-6, steps: int = 1000, batch_size: int = 16,
                 eval_steps: int = 100, eps: float = 1e-3, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, steps, batch_size, eval_steps)
        if not eps > 0:
            raise ValueError(f"eps must be > 0, got {eps!r} (MeZO uses 1e-3)")
        self.eps, self.weight_decay = eps, weight_decay

    memory_method = "mezo"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return model.requires_grad_(False)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        named = list(dict(model.named_parameters()).items())  # tied weights once
        decays = [not ("bias" in name or "norm" in name) for name, _ in named]
        params = [p for _, p in named]
        optimizer = ZerothOrderOptimizer(params, learning_rate, self.eps, None, self.weight_decay, decays, seed=seed)
        return zeroth_order(optimizer, model, scorer, train)
