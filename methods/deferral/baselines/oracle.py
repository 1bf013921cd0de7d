"""The Bayes-optimal allocation, a hindsight reference and not a competitor: by default the set of any size
with the lowest exact expected cost under the task's vote (`set_costs`: E[loss of the decision | x] + summed
beta), or with `k` the Bayes top-k, the k entities of lowest exact E[c_j | x] (spec: shared/papers/topk_l2d.md,
[secondary]). It is computed from the panel's known competence map and the exact posterior (generated
mixtures) or the label itself (a dataset holding each x once, where it knows whether the fixed model is
right), so it reads what no other method may (`reads_hidden_labels`). Votes follow the Bayes tie-break: the
consulted entity of lowest expected loss first; regression answers are averaged."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.deferral.allocation import allocation, check_k, top_k
from methods.deferral.params import OracleParams
from methods.deferral.problem import Allocation, AllocationInputs


class BayesOracle(Method[OracleParams]):
    reads_hidden_labels = True

    def run(self, inputs: AllocationInputs, ctx: RunContext) -> Allocation:
        expected_loss = inputs.test_expected_costs - inputs.costs[None, :]
        # priority: the lowest expected loss first, then the lower entity index (set_costs' tie-break)
        priority = 2.0 - expected_loss - 1e-9 * np.arange(inputs.num_entities)[None, :]
        weights = priority if inputs.kind == "classification" else np.ones_like(priority)
        scores = -inputs.test_expected_costs
        sizes = range(1, inputs.num_entities + 1)
        if self.params.k is None:
            return allocation([inputs.test_best_sets, *(top_k(scores, k) for k in sizes)], weights)
        k = check_k(self.params.k, inputs)
        return allocation([top_k(scores, each) for each in (k, *sizes)], weights)
