"""Random-k: each query consults k entities drawn uniformly at random (the run's seed), majority vote.
The floor a learned allocation must clear at the same cardinality; extra operating points are k = 1..E."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, check_k, top_k
from methods.deferral.params import RandomKParams
from methods.deferral.problem import Allocation, AllocationInputs


class RandomK(Method[RandomKParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        k = check_k(self.params.k, inputs)
        scores = np.random.default_rng(ctx.seed).random((inputs.test_x.shape[0], inputs.num_entities))
        return allocation([top_k(scores, each) for each in (k, *range(1, inputs.num_entities + 1))], 1.0)
