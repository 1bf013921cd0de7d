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

OPTIMIZERS = ("sgd", "adamw")


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


class FineTune(FineTuningMethod):
    def __init__(self, optimizer: str = "sgd", learning_rate: float | Sequence[float] = 8e-4, steps: int = 1000,
                 batch_size: int = 8, eval_steps: int = 100, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, steps, batch_size, eval_steps)
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
        self.optimizer, self.weight_decay = optimizer, weight_decay

    @property
    def memory_method(self) -> str:
        return f"ft_{self.optimizer}"

    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        return model.requires_grad_(True)

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        params = list(model.parameters())
        optimizer = (torch.optim.SGD(params, lr=learning_rate, weight_decay=self.weight_decay)
                     if self.optimizer == "sgd" else
                     torch.optim.AdamW(params, lr=learning_rate, weight_decay=self.weight_decay))
        return backprop(model, scorer, train, optimizer, self.steps)
