"""Full fine-tuning with back-propagation: SGD (QZO's upper bound) and AdamW.

The paper's "FT" row is SGD, not AdamW (lr 8e-4, linear decay, batch 8); every table here says which.
AdamW is the extra row whose 16-bit memory Fig. 1 compares QZO with. Both decay the learning rate linearly
to zero over the run, as the paper's FT does.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from methods.zo_finetune.method import Adaptation, FineTuningMethod
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.params import FineTuneParams


def backprop(model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, optimizer: torch.optim.Optimizer,
             steps: int) -> Adaptation:
    """The adaptation of a first-order method: loss, backward, step, linear learning-rate decay to zero."""
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1.0 - step / steps))
    trainable = [p for group in optimizer.param_groups for p in group["params"]]

    def step(batch: Sequence[int]) -> float:
        loss = scorer.loss(model, train, batch)
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss.item()

    return Adaptation(trainable, step, optimizer)


class FineTune(FineTuningMethod[FineTuneParams]):
    @property
    def memory_method(self) -> str:
        return f"ft_{self.params.optimizer}"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return model.requires_grad_(True)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        params, p = list(model.parameters()), self.params
        optimizer = (torch.optim.SGD(params, lr=learning_rate, weight_decay=p.weight_decay)
                     if p.optimizer == "sgd" else
                     torch.optim.AdamW(params, lr=learning_rate, weight_decay=p.weight_decay))
        return backprop(model, scorer, train, optimizer, p.steps)
