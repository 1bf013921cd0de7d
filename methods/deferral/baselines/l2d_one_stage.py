"""One-stage Top-1 L2D: the classifier and the deferral are learned together (score-based; Mozannar and
Sontag, ICML 2020; Verma, Barrejón and Nalisnick, AISTATS 2023 for several experts). The entities are the C
labels and the J experts (the spec's one-stage regime), scored by one network trained with the same
cost-weighted surrogate: label l costs 1[l != y] + beta_0, expert j its loss + beta_j. A query takes the
best-scored entity: a label means the network answers itself (entity 0, the "model", is its own classifier).
Classification only. Extra operating points shift the label scores (the usual deferral threshold)."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, scorer_config, shifted_sweep
from methods.deferral.losses import loss
from methods.deferral.params import ScorerParams
from methods.deferral.problem import Allocation, AllocationInputs
from methods.deferral.scorer import shared_scorer


class OneStageL2D(Method[ScorerParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        if inputs.kind != "classification":
            raise ValueError("one-stage L2D scores the labels themselves: it needs a classification dataset")
        classes, train = inputs.num_classes, inputs.train
        scale = self.params.cost_scale
        label_costs = (np.arange(classes)[None, :] != train.y[:, None]) + scale * inputs.costs[0]
        expert_costs = loss(inputs.kind, train.answers[:, 1:], train.y) + scale * inputs.costs[None, 1:]
        scorer = shared_scorer(train.x, np.hstack([label_costs, expert_costs]), scorer_config(self.params), ctx.seed)
        scores = scorer.scores(inputs.test_x)
        own_answer = scores[:, :classes].argmax(axis=1)
        masks = []
        for shifted in [scores, *shifted_sweep(scores, slice(0, classes))]:
            entity_scores = np.column_stack([shifted[:, :classes].max(axis=1), shifted[:, classes:]])
            masks.append(entity_scores.argmax(axis=1)[:, None] == np.arange(inputs.num_entities)[None, :])
        return allocation(masks, 1.0, model_answer=own_answer)
