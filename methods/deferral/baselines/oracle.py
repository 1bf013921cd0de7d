"""The Bayes-optimal Top-k allocation: the k entities of lowest exact expected cost E[c_j | x] (spec:
shared/papers/topk_l2d.md, [secondary]), computed from the panel's known competence map and the exact
posterior (generated mixtures) or the label (a dataset holding each x once). It reads what no other method
may (`reads_hidden_labels`); its regret is 0 by construction. Votes are weighted by expected competence."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, check_k, top_k
from methods.deferral.params import OracleParams
from methods.deferral.problem import Allocation, AllocationInputs


class BayesOracle(Method[OracleParams]):
    reads_hidden_labels = True

    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        k = check_k(self.params.k, inputs)
        expected_loss = inputs.test_expected_costs - inputs.costs[None, :]
        competence = (np.maximum(1.0 - expected_loss, 1e-6) if inputs.kind == "classification"
                      else 1.0 / np.maximum(expected_loss, 1e-9))
        scores = -inputs.test_expected_costs
        return allocation([top_k(scores, each) for each in (k, *range(1, inputs.num_entities + 1))], competence)
