"""The metrics: scikit-learn's values where it has them, the costs and regret by hand, the curve's area."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, mean_squared_error, r2_score

from methods.deferral import metrics as m
from methods.deferral.baselines.random_k import RandomK
from methods.deferral.metrics import OperatingPoint, ScoredAllocation
from methods.deferral.problem import AllocationTruth
from methods.deferral.task import scored_allocation
from tests.deferral.conftest import TASK
from tests.method_runs import context

COSTS = np.array([0.0, 0.1, 0.3])


def _run(kind: str, y, decisions, consulted, expert_loss, model_answer=None) -> ScoredAllocation:  # noqa: ANN001
    y = np.asarray(y)
    truth = AllocationTruth(kind, 3 if kind == "classification" else 0, ("model", "expert1", "expert2"), COSTS,
                            np.arange(y.size), y, np.zeros((y.size, 3)), np.asarray(expert_loss, dtype=float), None)
    points = tuple(OperatingPoint(np.asarray(c, dtype=bool), np.asarray(d)) for d, c in zip(decisions, consulted,
                                                                                            strict=True))
    return ScoredAllocation(truth, points, y if model_answer is None else np.asarray(model_answer))


def test_accuracy_equals_scikit_learn_on_a_random_run(mixture_instance):
    table = TASK.predictions(mixture_instance, RandomK(k=2).run(mixture_instance.inputs, context()))
    run = scored_allocation(mixture_instance.truth, table)
    assert m.accuracy(run) == pytest.approx(100 * accuracy_score(mixture_instance.truth.y, run.main.decision))
    assert np.isnan(m.mse(run))


def test_mse_equals_scikit_learn_on_a_random_run(diabetes_instance):
    table = TASK.predictions(diabetes_instance, RandomK(k=3).run(diabetes_instance.inputs, context()))
    run = scored_allocation(diabetes_instance.truth, table)
    assert m.mse(run) == pytest.approx(mean_squared_error(diabetes_instance.truth.y, run.main.decision))
    assert np.isnan(m.accuracy(run))


def test_costs_by_hand():
    consulted = [[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 1, 1]]
    run = _run("classification", [0, 1, 2, 0], [[0, 1, 1, 2]], [consulted], np.zeros((4, 2)))
    assert m.consult_cost(run) == pytest.approx(np.mean([0.0, 0.1, 0.4, 0.4]))
    assert m.total_cost(run) == pytest.approx(np.mean([0.0, 0.1, 1.4, 1.4]))  # two wrong decisions
    assert m.mean_k(run) == pytest.approx(2.0)
    assert [m.k_share(run, k) for k in (1, 2, 3)] == [25.0, 50.0, 25.0] and np.isnan(m.k_share(run, 4))
    assert m.entity_share(run, 1) == 75.0 and np.isnan(m.entity_share(run, 5))


def test_regret_same_k_is_the_excess_over_the_best_set_of_the_same_size():
    # expected costs per sample (model answers right, so its cost is 0): [0, 0.1 + 0.5, 0.3 + 0.0]
    expert_loss = [[0.5, 0.0], [0.5, 0.0]]
    run = _run("classification", [0, 1], [[0, 1]], [[[0, 1, 0], [0, 1, 1]]], expert_loss)
    # sample 0 takes entity 1 (0.6) where the model (0) was best; sample 1 takes {1, 2} (0.9) where {0, 2} (0.3) was
    assert m.regret_same_k(run) == pytest.approx(np.mean([0.6, 0.6]))


def test_regret_is_the_excess_over_the_best_set_of_any_size_deciding_by_the_vote():
    # three classes; the model is right; expert1 wrong half the time (cost 0.1), expert2 always right (cost 0.3)
    expert_loss = [[0.5, 0.0], [0.5, 0.0]]
    run = _run("classification", [0, 1], [[0, 1]], [[[0, 1, 0], [1, 1, 1]]], expert_loss)
    # best of any size: the model alone, expected cost 0. Sample 0 consults expert1 alone: 0.5 + 0.1. Sample 1
    # consults all three: the model and expert2 are right, a majority whatever expert1 says: 0 + 0.4.
    assert m.regret(run) == pytest.approx(np.mean([0.6, 0.4]))


def test_regret_uses_the_exact_posterior_when_one_is_known():
    truth = AllocationTruth("classification", 2, ("model", "expert1"), np.array([0.0, 0.1]), np.arange(1),
                            np.array([0]), np.zeros((1, 2)), np.array([[0.2]]), np.array([[0.6, 0.4]]),
                            np.array([[[0.2], [0.2]]]))
    run = ScoredAllocation(truth, (OperatingPoint(np.array([[True, False]]), np.array([0])),), np.array([0]))
    assert m.regret_same_k(run) == pytest.approx((1 - 0.6) - (0.2 + 0.1))  # the model errs with probability 0.4
    # any size: the expert alone costs 0.3; both (a tie when they disagree goes to the expert, the lower expected
    # loss): right when the expert is, 0.2 + 0.1; so the best set costs 0.3 and the model alone 0.4
    assert m.regret(run) == pytest.approx(0.4 - 0.3)


def _curve_run(kind, budgets, points):  # noqa: ANN001, ANN202
    """A run whose operating points have the given (consulted entities, number right) over 4 samples."""
    y = np.array([0, 1, 2, 0])
    truth = AllocationTruth(kind, 3 if kind == "classification" else 0, ("model", "expert1", "expert2"), COSTS,
                            np.arange(4), y, np.zeros((4, 3)), np.zeros((4, 2)), None, budgets=budgets)
    ops = []
    for entities, right in points:
        consulted = np.zeros((4, 3), dtype=bool)
        consulted[:, entities] = True
        decision = np.where(np.arange(4) < right, y, (y + 1) % 3) if kind == "classification" else y + right
        ops.append(OperatingPoint(consulted, decision.astype(float)))
    return ScoredAllocation(truth, tuple(ops), y)


def test_accuracy_at_budget_interpolates_the_upper_envelope_of_the_run_s_points():
    # points at cost 0 (50 %), 0.1 (75 %), 0.3 (100 %) and a dominated one at 0.3 (25 %)
    run = _curve_run("classification", (0.05, 0.2, 0.3), [([0], 2), ([1], 3), ([2], 4), ([2], 1)])
    assert m.at_budget(run, 1, "classification") == pytest.approx(62.5)   # halfway from 50 to 75
    assert m.at_budget(run, 2, "classification") == pytest.approx(87.5)   # halfway from 75 to 100
    assert m.at_budget(run, 3, "classification") == pytest.approx(100.0)  # on a point
    # the envelope, not the neighbours: mixing the 0-cost and 0.3-cost points beats a poor point in between
    poor = _curve_run("classification", (0.1,), [([0], 2), ([1], 0), ([2], 4)])
    assert m.at_budget(poor, 1, "classification") == pytest.approx(50 + 50 / 3)
    assert np.isnan(m.at_budget(run, 1, "regression"))


def test_budgets_outside_the_curve_or_not_named_are_nan():
    run = _curve_run("classification", (0.2, 0.5), [([1], 3), ([2], 4)])  # costs 0.1 and 0.3
    assert m.at_budget(run, 1, "classification") == pytest.approx(87.5)
    assert np.isnan(m.at_budget(run, 2, "classification"))  # above the dearest point: never extrapolated
    assert np.isnan(m.at_budget(run, 3, "classification"))  # the dataset names two budgets
    cheap = _curve_run("classification", (0.05,), [([1], 3), ([2], 4)])
    assert np.isnan(m.at_budget(cheap, 1, "classification"))  # below the cheapest point


def test_mse_at_budget_takes_the_lower_envelope():
    # errors of 0, 1 and 2 on every sample: MSE 0, 1 and 4 at costs 0.3, 0 and 0.1
    run = _curve_run("regression", (0.05, 0.2), [([2], 0), ([0], 1), ([1], 2)])
    assert m.at_budget(run, 1, "regression") == pytest.approx(1 - 0.05 / 0.3)  # the 0-to-0.3 chord
    assert m.at_budget(run, 2, "regression") == pytest.approx(1 - 0.2 / 0.3)


def test_cost_auc_integrates_the_best_accuracy_within_each_budget():
    # full cost 0.4; points at normalised cost 0.25 (accuracy 1/2) and 1.0 (accuracy 1), plus 0.0 (accuracy 0)
    y = [0, 1]
    run = _run("classification", y, [[0, 0], [0, 1], [2, 2]],
               [[[0, 1, 0], [0, 1, 0]], [[1, 1, 1], [1, 1, 1]], [[1, 0, 0], [1, 0, 0]]], np.zeros((2, 2)))
    assert m.cost_auc(run) == pytest.approx(0.5 * 0.75)
    assert m.cost_auc(_run("classification", y, [[0, 1]], [[[1, 1, 1], [1, 1, 1]]], np.zeros((2, 2)))) == 0.0


def test_cost_auc_of_regression_uses_r2_floored_at_zero():
    y = np.array([0.0, 1.0, 2.0, 3.0])
    decision = np.array([0.1, 0.9, 2.2, 2.9])
    run = _run("regression", y, [decision, np.full(4, 10.0)], [np.eye(3, dtype=bool)[[0, 0, 0, 0]],
                                                               np.ones((4, 3), dtype=bool)], np.zeros((4, 2)))
    assert m.cost_auc(run) == pytest.approx(r2_score(y, decision))


def test_scoring_reads_the_table_alone_after_a_parquet_round_trip(mixture_instance, tmp_path):
    table = TASK.predictions(mixture_instance, RandomK(k=2).run(mixture_instance.inputs, context()))
    table.to_parquet(tmp_path / "p.parquet")
    metrics = {"accuracy": m.ACCURACY, "regret": m.REGRET, "cost_auc": m.COST_AUC, "total_cost": m.TOTAL_COST}
    again = TASK.score(mixture_instance, pd.read_parquet(tmp_path / "p.parquet"), metrics)
    assert again == TASK.score(mixture_instance, table, metrics)
