"""The family's metrics, pure functions of a `ScoredAllocation` (a predictions table read against the truth).

Accuracy and MSE are scikit-learn's on the decisions; the costs use the paper's c_j = loss_j + beta_j, with
the 0-1 loss for classification and the squared error on the standardised target for regression.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np

from harness import Metric
from methods.deferral.losses import expected_model_loss, loss
from methods.deferral.problem import AllocationTruth
from methods.deferral.set_costs import set_index, truth_set_costs

MAX_EXPERTS = 6  # share metrics exist for entities 0..MAX_EXPERTS; the k(x) histogram for k = 1..MAX_EXPERTS + 1


@dataclass(frozen=True)
class OperatingPoint:
    consulted: np.ndarray  # bool (n, E)
    decision: np.ndarray   # (n,)


@dataclass(frozen=True)
class ScoredAllocation:
    """The truth and a method's operating points (point 0 first: the method as configured), aligned with the
    test samples (`DeferralAllocation.score` reads them from the predictions table)."""

    truth: AllocationTruth
    points: tuple[OperatingPoint, ...]
    model_answer: np.ndarray  # (n,) entity 0's answers at point 0

    @property
    def main(self) -> OperatingPoint:
        return self.points[0]

    @cached_property
    def expected_costs(self) -> np.ndarray:
        """(n, E) exact E[c_j | x]: the method's entity-0 answers and the panel's competence map."""
        truth = self.truth
        model = expected_model_loss(truth.kind, self.model_answer, truth.y, truth.posterior)
        return np.column_stack([model, truth.expert_expected_loss]) + truth.costs[None, :]

    @cached_property
    def set_costs(self) -> np.ndarray:
        """(n, 2**E) exact expected cost of every set under the task's vote (`set_costs.truth_set_costs`)."""
        return truth_set_costs(self.truth, self.model_answer)


def accuracy(run: ScoredAllocation) -> float:
    """Per cent of decisions equal to the label (`sklearn.metrics.accuracy_score`); NaN for regression."""
    if run.truth.kind != "classification":
        return float("nan")
    from sklearn.metrics import accuracy_score

    return 100.0 * float(accuracy_score(run.truth.y, run.main.decision))


def mse(run: ScoredAllocation) -> float:
    """Mean squared error of the decisions on the standardised target (`sklearn.metrics.mean_squared_error`);
    NaN for classification."""
    if run.truth.kind != "regression":
        return float("nan")
    from sklearn.metrics import mean_squared_error

    return float(mean_squared_error(run.truth.y, run.main.decision))


def _consultation(run: ScoredAllocation, point: OperatingPoint) -> np.ndarray:
    return point.consulted @ run.truth.costs


def consult_cost(run: ScoredAllocation) -> float:
    """Mean consultation cost per query: the summed beta_j of the consulted entities."""
    return float(_consultation(run, run.main).mean())


def total_cost(run: ScoredAllocation) -> float:
    """Mean of the decision's loss plus the consultation cost: the quantity the deferral trades off."""
    return float((loss(run.truth.kind, run.main.decision, run.truth.y) + _consultation(run, run.main)).mean())


def regret(run: ScoredAllocation) -> float:
    """Mean excess of the consulted set's exact expected cost over the best set of any size, both deciding by
    the task's vote with the Bayes tie-break (`set_costs`: E[loss of the decision | x] + summed beta). It
    judges the allocation, the choice of k included; the method's own tie-break is judged by accuracy and
    total cost. Never negative; 0 for the oracle of any size."""
    table, chosen = run.set_costs, set_index(run.main.consulted)
    return float((table[np.arange(chosen.size), chosen] - table.min(axis=1)).mean())


def regret_same_k(run: ScoredAllocation) -> float:
    """Mean excess of the consulted set's summed expected costs over the best set of the same size (the
    paper's additive top-k deferral loss, whose Bayes allocation is the k entities of lowest E[c_j | x]): how
    well the scorer ranks, whatever k is; exact, never negative."""
    expected, consulted = run.expected_costs, run.main.consulted
    chosen = np.where(consulted, expected, 0.0).sum(axis=1)
    ranked = np.cumsum(np.sort(expected, axis=1), axis=1)
    best = ranked[np.arange(expected.shape[0]), consulted.sum(axis=1) - 1]
    return float(np.maximum(chosen - best, 0.0).mean())  # the Bayes set itself differs by rounding alone


def _quality(run: ScoredAllocation, point: OperatingPoint) -> float:
    """Accuracy as a fraction, or R^2 floored at 0 (`sklearn.metrics.r2_score`)."""
    if run.truth.kind == "classification":
        return float(np.mean(point.decision == run.truth.y))
    from sklearn.metrics import r2_score

    return max(0.0, float(r2_score(run.truth.y, point.decision)))


def cost_auc(run: ScoredAllocation) -> float:
    """Area under the accuracy-cost curve (T-L2D-2): the best accuracy (R^2 for regression) the method's
    operating points reach within a budget, integrated over the budget from 0 to the cost of consulting every
    entity (normalised to [0, 1]); 0 below the cheapest point. NaN when every entity is free."""
    full = float(run.truth.costs.sum())
    if full <= 0:
        return float("nan")
    points = sorted((min(1.0, float(_consultation(run, p).mean()) / full), _quality(run, p)) for p in run.points)
    area, best = 0.0, 0.0
    for (budget, quality), following in zip(points, [*(b for b, _ in points[1:]), 1.0], strict=True):
        best = max(best, quality)
        area += best * (following - budget)
    return area


def _curve(run: ScoredAllocation) -> tuple[np.ndarray, np.ndarray]:
    """Each operating point's mean consultation cost and its accuracy (per cent) or MSE."""
    kind = run.truth.kind
    costs = np.array([_consultation(run, p).mean() for p in run.points])
    values = np.array([100.0 * np.mean(p.decision == run.truth.y) if kind == "classification" else
                       np.mean((p.decision - run.truth.y) ** 2) for p in run.points])
    return costs, values


def at_budget(run: ScoredAllocation, budget: int, kind: str) -> float:
    """The best accuracy (or lowest MSE) the run's operating points reach at a mean consultation cost of exactly
    the dataset's `budget`-th budget (1-based), answering each query with one of two points drawn at random in
    the proportion that spends it: the upper (lower, for MSE) envelope of the points, interpolated, never
    extrapolated. NaN when the budget lies outside the points' cost range, when the dataset names fewer budgets,
    or when the metric is not the dataset's kind."""
    truth = run.truth
    if truth.kind != kind or budget > len(truth.budgets):
        return float("nan")
    target = truth.budgets[budget - 1]
    costs, values = _curve(run)
    sign = 1.0 if kind == "classification" else -1.0
    best = -np.inf
    for low in np.flatnonzero(costs <= target):
        for high in np.flatnonzero(costs >= target):
            share = 0.0 if costs[high] == costs[low] else (target - costs[low]) / (costs[high] - costs[low])
            best = max(best, sign * ((1 - share) * values[low] + share * values[high]))
    return float(sign * best) if np.isfinite(best) else float("nan")


def entity_share(run: ScoredAllocation, entity: int) -> float:
    """Per cent of queries that consult entity `entity` (0: the model); NaN when the panel is smaller."""
    consulted = run.main.consulted
    return 100.0 * float(consulted[:, entity].mean()) if entity < consulted.shape[1] else float("nan")


def mean_k(run: ScoredAllocation) -> float:
    """Mean number of consulted entities per query."""
    return float(run.main.consulted.sum(axis=1).mean())


def k_share(run: ScoredAllocation, k: int) -> float:
    """Per cent of queries that consult exactly k entities: one bar of the k(x) histogram (T-L2D-3)."""
    consulted = run.main.consulted
    return 100.0 * float((consulted.sum(axis=1) == k).mean()) if k <= consulted.shape[1] else float("nan")


VERSION = "2"  # the selector part, the majority vote and the beta-sweep curves changed every figure

ACCURACY = Metric("accuracy", accuracy, higher_is_better=True, unit="%", version=VERSION,
                  description="system accuracy of the aggregated decisions, x100")
MSE = Metric("mse", mse, higher_is_better=False, version=VERSION, description="system MSE on the standardised target")
CONSULT_COST = Metric("consult_cost", consult_cost, higher_is_better=False, version=VERSION,
                      description="mean summed cost beta of the consulted entities per query")
TOTAL_COST = Metric("total_cost", total_cost, higher_is_better=False, version=VERSION,
                    description="mean loss of the decision plus consultation cost per query")
REGRET = Metric("regret", regret, higher_is_better=False, version=VERSION,
                description="mean excess expected cost of the consulted set (vote loss + beta) over the best set "
                            "of any size")
REGRET_SAME_K = Metric("regret_same_k", regret_same_k, higher_is_better=False, version=VERSION,
                       description="mean excess summed expected cost of the consulted set over the Bayes set of "
                                   "its size (the additive top-k loss)")
COST_AUC = Metric("cost_auc", cost_auc, higher_is_better=True, version=VERSION,
                  description="area under the best-accuracy-within-budget curve over normalised cost")
MEAN_K = Metric("mean_k", mean_k, higher_is_better=False, version=VERSION,
                description="mean number of consulted entities")
SHARE_MODEL = Metric("share_model", partial(entity_share, entity=0), higher_is_better=False, unit="%", version=VERSION,
                     description="per cent of queries that consult the fixed model")
SHARE_EXPERT1, SHARE_EXPERT2, SHARE_EXPERT3, SHARE_EXPERT4, SHARE_EXPERT5, SHARE_EXPERT6 = (
    Metric(f"share_expert{j}", partial(entity_share, entity=j), higher_is_better=False, unit="%", version=VERSION,
           description=f"per cent of queries that consult expert {j}") for j in range(1, MAX_EXPERTS + 1))
K_SHARE_1, K_SHARE_2, K_SHARE_3, K_SHARE_4, K_SHARE_5, K_SHARE_6, K_SHARE_7 = (
    Metric(f"k_share_{k}", partial(k_share, k=k), higher_is_better=False, unit="%", version=VERSION,
           description=f"per cent of queries that consult exactly {k} entities") for k in range(1, MAX_EXPERTS + 2))
ACCURACY_AT_BUDGET_1, ACCURACY_AT_BUDGET_2, ACCURACY_AT_BUDGET_3 = (
    Metric(f"accuracy_at_budget_{b}", partial(at_budget, budget=b, kind="classification"), higher_is_better=True,
           unit="%", version=VERSION, description=f"accuracy on the run's own curve at the dataset's budget {b}")
    for b in range(1, 4))
MSE_AT_BUDGET_1, MSE_AT_BUDGET_2, MSE_AT_BUDGET_3 = (
    Metric(f"mse_at_budget_{b}", partial(at_budget, budget=b, kind="regression"), higher_is_better=False,
           version=VERSION, description=f"MSE on the run's own curve at the dataset's budget {b}")
    for b in range(1, 4))
