"""Top-k L2D (Montreuil, Carlier, Ng, Ooi, "Why Ask One When You Can Ask k? Learning-to-Defer to the Top-k
Experts", arXiv 2504.12988; spec shared/papers/topk_l2d.md).

One scorer r(x) over the entities (the fixed model and the experts) is trained with the k-independent
cost-weighted surrogate (methods.deferral.surrogate) on c_j = loss_j + beta_j; a query consults the k
entities of highest score and their answers are combined by a vote weighted by the softmax of the scores
(or a plain majority). The spec leaves open: the scorer (ours: a one-hidden-layer MLP on x and the fixed
model's outputs, 300 full-batch Adam epochs), the aggregation (ours: weighted vote, ties to the top entity)
and the hyperparameters. The same trained scorer gives every k: the run's extra operating points are
k = 1..E from it, without retraining (and the scorer cache shares it across runs that differ only in k).
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.aggregation import aggregate
from methods.deferral.allocation import (allocation, check_k, entity_scorer, features, softmax, top_k)
from methods.deferral.losses import loss
from methods.deferral.params import TopKParams
from methods.deferral.problem import Allocation, AllocationInputs


def vote_weights(scores: np.ndarray, vote: str) -> np.ndarray:
    return softmax(scores) if vote == "weighted" else np.ones_like(scores)


def validation_total_cost(inputs: AllocationInputs, mask: np.ndarray, weights: np.ndarray) -> float:
    """Mean loss + consultation cost of an allocation of the validation part: a figure to choose variants on."""
    val = inputs.val
    decision = aggregate(inputs.kind, val.answers, np.where(mask, weights, 0.0), inputs.num_classes)
    return float((loss(inputs.kind, decision, val.y) + mask @ inputs.costs).mean())


class TopKL2D(Method[TopKParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        k = check_k(self.params.k, inputs)
        scorer = entity_scorer(inputs, self.params, ctx.seed)
        val_scores = scorer.scores(features(inputs.val.x, inputs.val.model_output))
        ctx.record("val_total_cost", validation_total_cost(inputs, top_k(val_scores, k),
                                                           vote_weights(val_scores, self.params.vote)),
                   higher_is_better=False)
        scores = scorer.scores(features(inputs.test_x, inputs.test_model_output))
        ks = [k, *range(1, inputs.num_entities + 1)]
        return allocation([top_k(scores, each) for each in ks], vote_weights(scores, self.params.vote))
