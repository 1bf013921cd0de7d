"""The Bayes oracle: its same-size regret is 0 at every k, its any-size regret 0 when it picks the best set,
every method's regret is >= 0, and its expected costs are the ones the posterior and the competence map give."""
from __future__ import annotations

import numpy as np
import pytest

from harness.registry import methods
from methods.deferral import metrics as m
from methods.deferral.baselines.oracle import BayesOracle
from methods.deferral.data import gaussian_mixture
from methods.deferral.task import DeferralAllocation
from tests.deferral.conftest import TASK
from tests.method_runs import context, scored

REGRET = {"regret": m.REGRET, "regret_same_k": m.REGRET_SAME_K}


@pytest.mark.parametrize("fixture", ["mixture_instance", "digits_instance", "diabetes_instance"])
def test_oracle_same_size_regret_is_zero_at_every_k(fixture, request):
    instance = request.getfixturevalue(fixture)
    for k in range(1, instance.inputs.num_entities + 1):
        assert scored(TASK, instance, BayesOracle(k=k), REGRET)["regret_same_k"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(("fixture", "one_is_best"), [("mixture_instance", False), ("digits_instance", True),
                                                      ("diabetes_instance", False)])
def test_the_oracle_of_any_size_has_zero_regret_and_beats_every_fixed_size(fixture, one_is_best, request):
    instance = request.getfixturevalue(fixture)
    best = scored(TASK, instance, BayesOracle(), REGRET)
    assert best["regret"] == pytest.approx(0.0, abs=1e-12)
    fixed = [scored(TASK, instance, BayesOracle(k=k), REGRET)["regret"]
             for k in range(1, instance.inputs.num_entities + 1)]
    assert min(fixed) >= 0
    # On digits each x appears once, so the Bayes allocation knows whether the fixed model (free) is right: the
    # model alone when it is, else the best expert alone, since a vote would need two right experts to outvote
    # it. On the mixture (a soft posterior) and in regression (averaging noises) no single size is best.
    assert (fixed[0] == pytest.approx(0.0, abs=1e-12)) is one_is_best and (min(fixed) > 0) is not one_is_best


# one-stage L2D scores the labels themselves, so it has no regression case (the suites exclude it there too)
@pytest.mark.parametrize(("name", "fixture"), [
    (name, fixture) for name in sorted(n for n in methods.names() if n.startswith("deferral."))
    for fixture in ("mixture_instance", "diabetes_instance")
    if not (name.endswith("one_stage") and fixture == "diabetes_instance")])
def test_every_method_has_non_negative_regret(name, fixture, request):
    instance = request.getfixturevalue(fixture)
    entry = methods.get(name)
    method = entry(**entry.params_model.tiny)
    values = scored(TASK, instance, method, REGRET)
    assert values["regret"] >= 0.0 and values["regret_same_k"] >= 0.0


def test_expected_costs_come_from_the_posterior_and_the_competence_map():
    problem = gaussian_mixture(num_samples=400, num_classes=4, dims=3, experts=2, generalist=0.7, seed=3)
    instance = DeferralAllocation().instance(problem, {}, 5)
    truth, inputs = instance.truth, instance.inputs
    rows = np.flatnonzero(np.isin(problem.sample_ids, truth.sample))
    posterior = problem.posterior[rows]
    competence = np.array([[0.9, 0.5, 0.9, 0.5], [0.5, 0.9, 0.5, 0.9], [0.7] * 4])  # class c's specialist: c mod 2
    expert = posterior @ (1 - competence).T
    model = 1 - posterior[np.arange(rows.size), truth.answers[:, 0]]
    np.testing.assert_allclose(inputs.test_expected_costs, np.column_stack([model, expert]) + inputs.costs)
    chosen = BayesOracle(k=1).run(inputs, context()).consulted[0]
    np.testing.assert_array_equal(chosen.argmax(axis=1), inputs.test_expected_costs.argmin(axis=1))


def test_a_learned_top_1_has_positive_regret_on_the_mixture(mixture_instance):
    from methods.deferral.topk import TopKL2D

    assert scored(TASK, mixture_instance, TopKL2D(k=1), REGRET)["regret"] > 0.01
