"""Learning to defer (Top-k L2D) on scikit-learn's digits, one torch thread: training one scorer with the
cost-weighted surrogate (the figure the family README quotes), allocating a Top-k run's curve from the cached
scorers, and aggregating the consulted answers of the test queries by the majority vote."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def digits():
    from methods.deferral.data import load_bundled
    from methods.deferral.task import DeferralAllocation

    return DeferralAllocation().instance(load_bundled("digits", generalist=0.85), {"model_components": 4}, seed=0)


def test_train_one_scorer_on_digits(benchmark, digits, one_thread):
    """300 full-batch Adam epochs of the linear scorer over 6 entities, 539 training queries."""
    from methods.deferral.allocation import features, scorer_config
    from methods.deferral.losses import entity_costs
    from methods.deferral.params import TopKParams
    from methods.deferral.scorer import train_scorer

    inputs = digits.inputs
    train = inputs.train
    costs = entity_costs(inputs.kind, train.answers, train.y, inputs.costs)
    x = features(train.x, train.model_output)
    benchmark(train_scorer, x, costs, scorer_config(TopKParams()), 0)
    benchmark.extra_info["queries"] = int(train.y.size)
    benchmark.extra_info["entities"] = int(costs.shape[1])


def test_every_k_and_its_decisions_from_one_scorer(benchmark, digits, one_thread):
    """The cached scorers' test scores over the beta sweep, their top-2 sets, and the votes the task takes of them."""
    from harness.context import RunContext
    from methods.deferral.task import DeferralAllocation
    from methods.deferral.topk import TopKL2D

    method, task = TopKL2D(k=2), DeferralAllocation()
    method.run(digits.inputs, RunContext(seed=0, device="cpu", threads=1))  # trains the scorer, which is then cached

    def allocate_and_decide():
        return task.predictions(digits, method.run(digits.inputs, RunContext(seed=0, device="cpu", threads=1)))

    table = benchmark(allocate_and_decide)
    benchmark.extra_info["rows"] = len(table)
    benchmark.extra_info["test_queries"] = int(np.unique(table["sample"]).size)
