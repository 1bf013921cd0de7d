"""Top-k(x): the adaptive-cardinality variant of Top-k L2D (arXiv 2504.12988; the spec marks its training
objective [inferred]).

The entity scorer is Top-k L2D's, unchanged. A second scorer s(x) over the actions k = 1..K is trained with
the same cost-weighted surrogate on the selector part of the split (which neither the entity scorer nor the
validation figures see), where action k costs the loss of the task's vote of the top-k entities plus their
summed cost_scale * beta_j. At test k(x) = argmax_k s(x)_k and the query consults its top-k(x) entities. The
run's extra operating points retrain only the selector with beta scaled by `SWEEP`: the selector is tiny,
the entity scorer shared.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.aggregation import aggregate
from methods.deferral.allocation import allocation, check_k, entity_scorer, features, reliability, scorer_config, top_k
from methods.deferral.losses import loss
from methods.deferral.params import TopKxParams
from methods.deferral.problem import Allocation, AllocationInputs, Part
from methods.deferral.scorer import shared_scorer
from methods.deferral.topk import validation_total_cost

SWEEP = (0.0, 0.25, 0.5, 2.0, 4.0, 8.0, 16.0)


def action_costs(inputs: AllocationInputs, part: Part, scores: np.ndarray, weights: np.ndarray, max_k: int,
                 cost_scale: float) -> np.ndarray:
    """(n, max_k) cost of consulting the top-k entities of a labelled part, k = 1..max_k: the vote's loss plus
    the scaled consultation cost."""
    columns = []
    for k in range(1, max_k + 1):
        mask = top_k(scores, k)
        decision = aggregate(inputs.kind, part.answers, np.where(mask, weights, 0.0), inputs.num_classes)
        columns.append(loss(inputs.kind, decision, part.y) + cost_scale * (mask @ inputs.costs))
    return np.column_stack(columns)


class TopKx(Method[TopKxParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        params = self.params
        max_k = check_k(params.max_k or inputs.num_entities, inputs)
        scorer = entity_scorer(inputs, params, ctx.seed)
        parts = {"selector": (inputs.selector.x, inputs.selector.model_output),
                 "val": (inputs.val.x, inputs.val.model_output), "test": (inputs.test_x, inputs.test_model_output)}
        scores = {name: scorer.scores(features(*part)) for name, part in parts.items()}
        weights = {name: reliability(inputs, params, ctx.seed, *part) for name, part in parts.items()}
        masks = []
        for index, multiplier in enumerate((1.0, *SWEEP)):
            costs = action_costs(inputs, inputs.selector, scores["selector"], weights["selector"], max_k,
                                 multiplier * params.cost_scale)
            selector = shared_scorer(features(*parts["selector"]), costs, scorer_config(params), ctx.seed + 1)
            masks.append(top_k(scores["test"], selector.scores(features(*parts["test"])).argmax(axis=1) + 1))
            if index == 0:  # the configured selector's validation figure, for choosing variants
                chosen_k = selector.scores(features(*parts["val"])).argmax(axis=1) + 1
                ctx.record("val_total_cost", validation_total_cost(inputs, top_k(scores["val"], chosen_k),
                                                                   weights["val"]), higher_is_better=False)
        return allocation(masks, weights["test"])
