"""The all-entities ensemble: every query consults the model and every expert, which vote by majority, ties going
to the voter of lowest validation error (classification), or average with weights 1 / their validation MSE
(regression). The accuracy ceiling of consulting, at the full cost."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, mean_part_loss
from methods.deferral.problem import Allocation, AllocationInputs


class AllEntitiesEnsemble(Method):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        val_loss = mean_part_loss(inputs, inputs.val)
        weights = 1.0 - val_loss if inputs.kind == "classification" else 1.0 / np.maximum(val_loss, 1e-9)
        mask = np.ones((inputs.test_x.shape[0], inputs.num_entities), dtype=bool)
        return allocation([mask], np.maximum(weights, 1e-6)[None, :])
