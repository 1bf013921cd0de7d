"""Selective prediction (Chow, 1970; Geifman and El-Yaniv, NeurIPS 2017) with a fixed fallback: the model
keeps the queries it is most confident on (the top `coverage` share by the validation quantile of its
confidence) and abstains on the others, which go to one fixed expert, the one with the lowest validation loss.
The model is run on every query, so its cost is always paid."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, mean_part_loss
from methods.deferral.confidence import validation_and_test_confidence
from methods.deferral.params import SelectiveParams
from methods.deferral.problem import Allocation, AllocationInputs

SWEEP = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)


class SelectivePrediction(Method[SelectiveParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        val_conf, test_conf = validation_and_test_confidence(inputs)
        fallback = 1 + int(np.argmin(mean_part_loss(inputs, inputs.val)[1:]))
        masks, weights = [], []
        for coverage in (self.params.coverage, *SWEEP):
            threshold = np.quantile(val_conf, 1.0 - coverage) if coverage < 1 else -np.inf
            abstain = test_conf < threshold
            mask = np.zeros((test_conf.size, inputs.num_entities), dtype=bool)
            mask[:, 0], mask[:, fallback] = True, abstain
            weight = np.zeros(mask.shape)
            weight[:, 0], weight[:, fallback] = ~abstain, abstain
            masks.append(mask)
            weights.append(weight)
        return allocation(masks, np.stack(weights))
