"""CC, the classifier-consistent partial-label loss (Feng et al., "Provably Consistent
Partial-Label Learning", NeurIPS 2020): minus the log of the probability the model puts
on the candidate set, -log sum_{c in S} p_c."""
from __future__ import annotations

import torch
from torch import Tensor, nn

from methods.partial_label_graph.batching import GraphBatch
from methods.partial_label_graph.params import GINParams
from methods.partial_label_graph.training import PartialLabelMethod, TrainingData


def candidate_marginal_nll(logits: Tensor, candidates: Tensor) -> Tensor:
    """Mean of -log sum_{c in S_i} softmax(logits_i)_c, computed stably in log space."""
    masked = logits.masked_fill(candidates <= 0, float("-inf"))
    return (torch.logsumexp(logits, dim=1) - torch.logsumexp(masked, dim=1)).mean()


class CCLoss(PartialLabelMethod[GINParams]):
    def batch_loss(self, model: nn.Module, batch: GraphBatch, positions: Tensor, data: TrainingData,
                   epoch: int) -> Tensor:
        return candidate_marginal_nll(model(batch), data.candidates[positions])
