"""A confidence cascade (Viola and Jones, 2001; FrugalGPT, Chen, Zaharia and Zou, 2023): the model answers
first, and a query it is unsure of climbs a chain of experts ordered by cost, paying every stage it passes.
Synthetic experts report no confidence, so the model's confidence decides how far a query climbs: stage l is
reached when it falls below the validation quantile defer_rate^l. The chain keeps, in order of cost, each
expert whose validation loss is below every earlier stage's; the last consulted stage decides."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, mean_part_loss
from methods.deferral.confidence import validation_and_test_confidence
from methods.deferral.params import CascadeParams
from methods.deferral.problem import Allocation, AllocationInputs

SWEEP = (0.1, 0.3, 0.5, 0.7, 0.9)


def expert_chain(inputs: AllocationInputs) -> list[int]:
    """Experts by increasing cost, each kept only if it beats every earlier stage on validation loss."""
    val_loss = mean_part_loss(inputs, inputs.val)
    chain, best = [], val_loss[0]
    for entity in sorted(range(1, inputs.num_entities), key=lambda j: (inputs.costs[j], j)):
        if val_loss[entity] < best:
            chain.append(entity)
            best = val_loss[entity]
    return chain


class ConfidenceCascade(Method[CascadeParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        val_conf, test_conf = validation_and_test_confidence(inputs)
        stages = [0, *expert_chain(inputs)]
        masks, weights = [], []
        for rate in (self.params.defer_rate, *SWEEP):
            thresholds = np.quantile(val_conf, [rate ** level for level in range(1, len(stages))])
            depth = (test_conf[:, None] < thresholds[None, :]).sum(axis=1)  # stages passed beyond the model
            mask = np.zeros((test_conf.size, inputs.num_entities), dtype=bool)
            weight = np.zeros(mask.shape)
            for level, entity in enumerate(stages):
                mask[:, entity] = depth >= level
                weight[depth == level, entity] = 1.0
            masks.append(mask)
            weights.append(weight)
        return allocation(masks, np.stack(weights))
