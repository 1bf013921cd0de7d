"""Top-k(x): the adaptive-cardinality variant of Top-k L2D (arXiv 2504.12988; the spec marks its training
objective [inferred]).

The entity scorer is Top-k L2D's, unchanged. A second scorer s(x) over the actions k = 1..K is trained with
the same cost-weighted surrogate, on the validation part (which the entity scorer never saw), where action
k costs the loss of the weighted vote of the top-k entities plus their summed cost_scale * beta_j. At test
k(x) = argmax_k s(x)_k and the query consults its top-k(x) entities. The run's extra operating points retrain
only the selector with beta scaled by 1/4, 1/2, 2 and 4: the selector is tiny, the entity scorer shared.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.aggregation import aggregate
from methods.deferral.allocation import allocation, check_k, entity_scorer, features, scorer_config, softmax, top_k
from methods.deferral.losses import loss
from methods.deferral.params import TopKxParams
from methods.deferral.problem import Allocation, AllocationInputs
from methods.deferral.scorer import shared_scorer
from methods.deferral.topk import validation_total_cost

SWEEP = (0.25, 0.5, 2.0, 4.0)


def action_costs(inputs: AllocationInputs, val_scores: np.ndarray, max_k: int, cost_scale: float) -> np.ndarray:
    """(n_val, max_k) cost of consulting the top-k entities, k = 1..max_k: vote loss + scaled consultation."""
    val, weights = inputs.val, softmax(val_scores)
    columns = []
    for k in range(1, max_k + 1):
        mask = top_k(val_scores, k)
        decision = aggregate(inputs.kind, val.answers, np.where(mask, weights, 0.0), inputs.num_classes)
        columns.append(loss(inputs.kind, decision, val.y) + cost_scale * (mask @ inputs.costs))
    return np.column_stack(columns)


class TopKx(Method[TopKxParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        max_k = check_k(self.params.max_k or inputs.num_entities, inputs)
        scorer = entity_scorer(inputs, self.params, ctx.seed)
        val_features = features(inputs.val.x, inputs.val.model_output)
        test_features = features(inputs.test_x, inputs.test_model_output)
        val_scores, scores = scorer.scores(val_features), scorer.scores(test_features)
        masks, val_mask = [], None
        for multiplier in (1.0, *SWEEP):
            costs = action_costs(inputs, val_scores, max_k, multiplier * self.params.cost_scale)
            selector = shared_scorer(val_features, costs, scorer_config(self.params), ctx.seed + 1)
            masks.append(top_k(scores, selector.scores(test_features).argmax(axis=1) + 1))
            if val_mask is None:
                val_mask = top_k(val_scores, selector.scores(val_features).argmax(axis=1) + 1)
        assert val_mask is not None  # the loop ran at the configured multiplier first
        ctx.record("val_total_cost", validation_total_cost(inputs, val_mask, softmax(val_scores)),
                   higher_is_better=False)
        return allocation(masks, softmax(scores))
