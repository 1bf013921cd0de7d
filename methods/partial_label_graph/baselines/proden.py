"""PRODEN / RC: self-training on the candidates (Lv et al., "Progressive Identification of
True Labels for Partial-Label Learning", ICML 2020; Feng et al.'s RC, NeurIPS 2020, is the
same risk with the same update).

Each training graph keeps a confidence w_i over its candidates, uniform at the start; the
loss is the w-weighted cross-entropy, and after each step a batch's confidences become
the model's probabilities restricted to the candidates and renormalised.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from harness import RunContext
from methods.partial_label_graph.batching import GraphBatch
from methods.partial_label_graph.task import PartialLabelInputs
from methods.partial_label_graph.training import GP, PartialLabelMethod, TrainingData, normalised


def weighted_cross_entropy(logits: Tensor, weights: Tensor) -> Tensor:
    """Mean over rows of -sum_c w_c log softmax(logits)_c."""
    return -(weights * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()


class PRODEN(PartialLabelMethod[GP]):
    def setup(self, model: nn.Module, data: TrainingData, inputs: PartialLabelInputs, ctx: RunContext) -> None:
        self.confidence = normalised(data.candidates)

    def batch_loss(self, model: nn.Module, batch: GraphBatch, positions: Tensor, data: TrainingData,
                   epoch: int) -> Tensor:
        logits = model(batch)
        loss = weighted_cross_entropy(logits, self.confidence[positions])
        with torch.no_grad():
            self.confidence[positions] = normalised(torch.softmax(logits, dim=1) * data.candidates[positions])
        return loss
