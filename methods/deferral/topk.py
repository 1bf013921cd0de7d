"""Top-k L2D (Montreuil, Carlier, Ng, Ooi, "Why Ask One When You Can Ask k? Learning-to-Defer to the Top-k
Experts", arXiv 2504.12988; spec shared/papers/topk_l2d.md).

One scorer r(x) over the entities (the fixed model and the experts) is trained with the k-independent
cost-weighted surrogate (methods.deferral.surrogate) on c_j = loss_j + beta_j; a query consults the k
entities of highest score and the task aggregates their answers (`aggregation`: majority vote, ties to the
voter estimated most reliable at x by a second scorer trained on the losses alone; the plain average for
regression). The spec leaves open the scorer (ours: linear on x and the fixed model's outputs, 300 full-batch
Adam epochs), the aggregation ([inferred]) and the hyperparameters. One trained scorer serves every k (the
scorer cache shares it across runs that differ only in k). The run's extra operating points keep k and
retrain the scorer with beta scaled by `COST_SWEEP` (T-L2D-2's sweep of beta): the curve of this k.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.aggregation import aggregate
from methods.deferral.allocation import COST_SWEEP, allocation, check_k, entity_scorer, features, reliability, top_k
from methods.deferral.losses import loss
from methods.deferral.params import TopKParams
from methods.deferral.problem import Allocation, AllocationInputs


def validation_total_cost(inputs: AllocationInputs, mask: np.ndarray, weights: np.ndarray) -> float:
    """Mean loss + consultation cost of an allocation of the validation part: a figure to choose variants on."""
    val = inputs.val
    decision = aggregate(inputs.kind, val.answers, np.where(mask, weights, 0.0), inputs.num_classes)
    return float((loss(inputs.kind, decision, val.y) + mask @ inputs.costs).mean())


class TopKL2D(Method[TopKParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        k, params = check_k(self.params.k, inputs), self.params
        val, test = (inputs.val.x, inputs.val.model_output), (inputs.test_x, inputs.test_model_output)
        scorer = entity_scorer(inputs, params, ctx.seed)
        ctx.record("val_total_cost", validation_total_cost(inputs, top_k(scorer.scores(features(*val)), k),
                                                           reliability(inputs, params, ctx.seed, *val)),
                   higher_is_better=False)
        masks = [top_k(entity_scorer(inputs, params, ctx.seed, scale).scores(features(*test)), k)
                 for scale in (params.cost_scale, *COST_SWEEP)]
        return allocation(masks, reliability(inputs, params, ctx.seed, *test))
