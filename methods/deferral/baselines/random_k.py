"""Random-k: each query consults k entities drawn uniformly at random (the run's seed), majority vote with
ties broken at random (the vote weights are fresh random numbers). The floor a learned allocation must clear at
the same cardinality; extra operating points are k = 1..E."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, check_k, top_k
from methods.deferral.params import RandomKParams
from methods.deferral.problem import Allocation, AllocationInputs


class RandomK(Method[RandomKParams]):
    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        k = check_k(self.params.k, inputs)
        rng = np.random.default_rng(ctx.seed)
        scores = rng.random((inputs.test_x.shape[0], inputs.num_entities))
        ties = rng.random(scores.shape) + 1e-6
        return allocation([top_k(scores, each) for each in (k, *range(1, inputs.num_entities + 1))], ties)
