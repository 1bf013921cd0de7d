"""Knowledge distillation (Hinton et al. 2015) from the source into a randomly initialised student: the loss is
(1 - alpha) x cross-entropy on the data + alpha x T^2 x KL(source || student) at temperature T, over the same
steps as every other method (the source's forward passes come on top)."""
from __future__ import annotations

from typing import Any

import torch

from methods.model_init.baselines.random_init import RandomInit
from methods.model_init.params import DistillParams
from methods.model_init.training import StepLoss
from methods.common.vocab import PAD


class Distill(RandomInit[DistillParams]):
    def step_loss(self, source: Any) -> StepLoss:
        alpha, temperature = self.params.alpha, self.params.temperature

        def loss(model: Any, ids: torch.Tensor) -> torch.Tensor:
            mask = (ids != PAD).long()
            logits = model(input_ids=ids, attention_mask=mask, use_cache=False).logits[:, :-1]
            with torch.no_grad():
                teacher = source(input_ids=ids, attention_mask=mask, use_cache=False).logits[:, :-1]
            keep = ids[:, 1:] != PAD
            data = torch.nn.functional.cross_entropy(logits[keep], ids[:, 1:][keep])
            kl = torch.nn.functional.kl_div(torch.log_softmax(logits[keep] / temperature, -1),
                                            torch.log_softmax(teacher[keep] / temperature, -1),
                                            log_target=True, reduction="batchmean")
            return (1 - alpha) * data + alpha * temperature ** 2 * kl

        return loss
