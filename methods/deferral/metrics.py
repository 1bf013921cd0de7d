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
    """Mean excess of the consulted set's summed expected costs over the best set of the same size (the
    top-k deferral loss's Bayes allocation: the k entities of lowest E[c_j | x]); exact, never negative."""
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


ACCURACY = Metric("accuracy", accuracy, higher_is_better=True, unit="%",
                  description="system accuracy of the aggregated decisions, x100")
MSE = Metric("mse", mse, higher_is_better=False, description="system MSE on the standardised target")
CONSULT_COST = Metric("consult_cost", consult_cost, higher_is_better=False,
                      description="mean summed cost beta of the consulted entities per query")
TOTAL_COST = Metric("total_cost", total_cost, higher_is_better=False,
                    description="mean loss of the decision plus consultation cost per query")
REGRET = Metric("regret", regret, higher_is_better=False,
                description="mean excess expected cost of the consulted set over the Bayes set of its size")
COST_AUC = Metric("cost_auc", cost_auc, higher_is_better=True,
                  description="area under the best-accuracy-within-budget curve over normalised cost")
MEAN_K = Metric("mean_k", mean_k, higher_is_better=False, description="mean number of consulted entities")
SHARE_MODEL = Metric("share_model", partial(entity_share, entity=0), higher_is_better=False, unit="%",
                     description="per cent of queries that consult the fixed model")
SHARE_EXPERT1, SHARE_EXPERT2, SHARE_EXPERT3, SHARE_EXPERT4, SHARE_EXPERT5, SHARE_EXPERT6 = (
    Metric(f"share_expert{j}", partial(entity_share, entity=j), higher_is_better=False, unit="%",
           description=f"per cent of queries that consult expert {j}") for j in range(1, MAX_EXPERTS + 1))
K_SHARE_1, K_SHARE_2, K_SHARE_3, K_SHARE_4, K_SHARE_5, K_SHARE_6, K_SHARE_7 = (
    Metric(f"k_share_{k}", partial(k_share, k=k), higher_is_better=False, unit="%",
           description=f"per cent of queries that consult exactly {k} entities") for k in range(1, MAX_EXPERTS + 2))
