"""Two-stage Top-1 L2D (Mao, Mohri, Mohri and Zhong, "Two-stage learning to defer with multiple experts",
NeurIPS 2023): the model is fixed and a rejector over the model and the experts is trained with the
cost-weighted surrogate; each query goes to the one best-scored entity. This is Top-k L2D's scorer at k = 1
(the paper's special case), so it is the same trained scorer. Its curve is the widest a Top-1 rule has here:
the beta sweep Top-k uses (`COST_SWEEP`, retrained) and a shift of the model's score at the configured scale
(the usual deferral threshold), from always answering with the model to never."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import COST_SWEEP, allocation, entity_scorer, features, shifted_sweep, top_k
from methods.deferral.params import ScorerParams
from methods.deferral.problem import Allocation, AllocationInputs
from methods.deferral.topk import validation_total_cost


class TwoStageL2D(Method[ScorerParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        scorer = entity_scorer(inputs, self.params, ctx.seed)
        val_scores = scorer.scores(features(inputs.val.x, inputs.val.model_output))
        ctx.record("val_total_cost", validation_total_cost(inputs, top_k(val_scores, 1), np.ones_like(val_scores)),
                   higher_is_better=False)
        test = features(inputs.test_x, inputs.test_model_output)
        scores = scorer.scores(test)
        swept = [entity_scorer(inputs, self.params, ctx.seed, scale).scores(test) for scale in COST_SWEEP]
        return allocation([top_k(s, 1) for s in [scores, *swept, *shifted_sweep(scores, slice(0, 1))]], 1.0)
