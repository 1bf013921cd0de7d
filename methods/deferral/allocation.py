"""Building blocks the methods share: the scorer's features, top-k sets from scores, and an `Allocation` of
several operating points."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from methods.deferral.losses import entity_costs, loss
from methods.deferral.params import ScorerParams
from methods.deferral.problem import Allocation, AllocationInputs, Part
from methods.deferral.scorer import Scorer, ScorerConfig, shared_scorer


def features(x: np.ndarray, model_output: np.ndarray) -> np.ndarray:
    """A two-stage rejector's input: the features and the fixed model's outputs (its confidence included)."""
    return np.hstack([x, model_output])


def scorer_config(params: ScorerParams) -> ScorerConfig:
    """The `ScorerConfig` of a method's `ScorerParams`."""
    return ScorerConfig(**{name: getattr(params, name) for name in ScorerConfig.__dataclass_fields__})


# The training cost scales that trace a learned method's accuracy-cost curve (T-L2D-2: a sweep of beta): from
# the experts free (0: the most reliable entities) to 16 times their cost (the free fixed model and the cheapest).
COST_SWEEP = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


def entity_scorer(inputs: AllocationInputs, params: ScorerParams, seed: int, cost_scale: float | None = None
                  ) -> Scorer:
    """The Top-k L2D scorer over the entities, trained on the train part's realised costs
    c_j = loss_j + cost_scale * beta_j (`cost_scale`: the params' unless given); one per (data, settings,
    cost scale, seed) in a process, whatever k is used."""
    train = inputs.train
    scale = params.cost_scale if cost_scale is None else cost_scale
    costs = entity_costs(inputs.kind, train.answers, train.y, inputs.costs, scale)
    return shared_scorer(features(train.x, train.model_output), costs, scorer_config(params), seed)


def reliability(inputs: AllocationInputs, params: ScorerParams, seed: int, x: np.ndarray,
                model_output: np.ndarray) -> np.ndarray:
    """(n, E) vote weights: each entity's estimated chance of being right at x, the softmax of a scorer trained
    on the train part's losses alone (cost_scale 0; its population softmax decreases with E[loss_j | x]), so
    ties are broken by reliability and not by the cost-laden routing score. Equal weights for regression (the
    spec's plain average)."""
    if inputs.kind == "regression":
        return np.ones((x.shape[0], inputs.num_entities))
    return softmax(entity_scorer(inputs, params, seed, cost_scale=0.0).scores(features(x, model_output)))


def top_k(scores: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    """Bool (n, E): each row's k highest scores (ties to the lower entity index); `k` per row or one for all."""
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[1])[None, :].repeat(scores.shape[0], axis=0), axis=1)
    return ranks < np.reshape(k, (-1, 1))


def softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def allocation(masks: Sequence[np.ndarray], weights: Sequence[np.ndarray] | np.ndarray | float,
               model_answer: np.ndarray | None = None) -> Allocation:
    """An `Allocation` from one (n, E) consulted mask per operating point and their weights (one (n, E)
    array for all points, or one per point); weights off the mask are zeroed."""
    stacked = np.stack(masks)
    weight = np.broadcast_to(np.asarray(weights, dtype=np.float64), stacked.shape)
    return Allocation(stacked, np.where(stacked, weight, 0.0), model_answer)


def check_k(k: int, inputs: AllocationInputs) -> int:
    if k > inputs.num_entities:
        raise ValueError(f"k = {k} exceeds the {inputs.num_entities} entities (the model and "
                         f"{inputs.num_entities - 1} experts)")
    return k


def mean_part_loss(inputs: AllocationInputs, part: Part) -> np.ndarray:
    """(E,) each entity's mean loss on a labelled part."""
    return loss(inputs.kind, part.answers, part.y).mean(axis=0)


def shifted_sweep(scores: np.ndarray, column: slice, levels: int = 9) -> list[np.ndarray]:
    """Scores with a bias added to the `column` block (the model's own answer), one per quantile of the gap
    between the best other score and the block's best: from never choosing the block to always choosing it.
    A top-1 method's accuracy-cost curve without retraining (Mozannar and Sontag's deferral threshold)."""
    others = np.delete(scores, np.arange(scores.shape[1])[column], axis=1)
    gap = others.max(axis=1) - scores[:, column].max(axis=1)
    swept = []
    for bias in np.quantile(gap, np.linspace(0, 1, levels)) + np.array([-1e-6] + [1e-6] * (levels - 1)):
        shifted = scores.copy()
        shifted[:, column] += bias
        swept.append(shifted)
    return swept
