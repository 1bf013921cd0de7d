"""The exact expected cost of consulting a set of entities and deciding by the task's aggregation, for every
non-empty set: what the any-size regret (`metrics.regret`) and the Bayes oracle of any size compare.

The cost of a set S at x is E[loss(decision_S) | x] + sum_{j in S} beta_j, where decision_S is the task's
aggregation (`aggregation.aggregate`) with the Bayes tie-break: a majority vote whose ties go to the label of
the tied voter with the lowest exact E[loss_j | x] (then the lower entity index), or the plain mean of the
answers for regression. Under the paper's additive Top-k loss (sum of the members' c_j) the best set of any
size would always be a single entity, so a size-aware comparison needs the decision's loss, hence the vote.

Synthetic experts answer independently given y (right with their competence, else a uniformly drawn wrong
label; or y plus zero-mean noise), the fixed model deterministically, so the vote's law is exact: given which
voters are right, the chance that the true label wins sums over the ways the wrong voters can share wrong
labels (set partitions, each weighted by the falling factorial (C-1)_b / (C-1)^w). Fixed answers (bring your
own) are scored as they are: their expected loss is their loss.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from methods.deferral.aggregation import aggregate
from methods.deferral.losses import expected_model_loss
from methods.deferral.problem import AllocationTruth, Kind


def _set_partitions(items: int) -> Iterator[tuple[int, ...]]:
    """Restricted growth strings: the block of each of `items` wrong voters, each partition once."""
    def grow(prefix: tuple[int, ...], blocks: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == items:
            yield prefix
            return
        for block in range(blocks + 1):
            yield from grow((*prefix, block), max(blocks, block + 1))
    yield from grow((), 0)


def _truth_wins(right: list[int], wrong: list[int], blocks: tuple[int, ...]) -> bool:
    """Whether the true label wins the vote: most voters, or tied for most with the highest-priority tied voter
    (the lowest position) among its own."""
    counts = np.bincount(np.asarray(blocks, dtype=np.int64)) if blocks else np.zeros(0, dtype=np.int64)
    top = max(len(right), int(counts.max()) if counts.size else 0)
    if not right or len(right) < top:
        return False
    tied_wrong = [voter for voter, block in zip(wrong, blocks, strict=True) if counts[block] == top]
    return not tied_wrong or min(right) < min(tied_wrong)


@lru_cache(maxsize=64)
def vote_win_table(size: int, num_classes: int) -> np.ndarray:
    """(2**size,) P(the true label wins | which voters are right): bit i of the index says that voter i (in
    priority order, 0 first) is right; a wrong voter names one of the C - 1 wrong labels uniformly."""
    wrong_labels = num_classes - 1
    table = np.zeros(2 ** size)
    for mask in range(2 ** size):
        right = [voter for voter in range(size) if mask >> voter & 1]
        wrong = [voter for voter in range(size) if not mask >> voter & 1]
        for blocks in _set_partitions(len(wrong)):
            used = max(blocks) + 1 if blocks else 0
            if used > wrong_labels or not _truth_wins(right, wrong, blocks):
                continue
            table[mask] += np.prod(np.arange(wrong_labels, wrong_labels - used, -1.0)) / wrong_labels ** len(wrong)
    return table


def set_members(num_entities: int) -> list[np.ndarray]:
    """Entity indices of each set, indexed by the set's bit mask (index 0, the empty set, holds nothing)."""
    return [np.flatnonzero([(mask >> j) & 1 for j in range(num_entities)]) for mask in range(2 ** num_entities)]


def set_index(consulted: np.ndarray) -> np.ndarray:
    """(n,) the bit mask of each row's consulted set (bool (n, E))."""
    return consulted.astype(np.int64) @ (1 << np.arange(consulted.shape[1], dtype=np.int64))


def expected_set_costs(kind: Kind, costs: np.ndarray, entity_loss: np.ndarray, answers: np.ndarray,
                       y: np.ndarray, num_classes: int, drawn: bool, class_accuracy: np.ndarray | None = None,
                       posterior: np.ndarray | None = None) -> np.ndarray:
    """(n, 2**E) expected cost of every set (column: its bit mask; the empty set's is inf).

    entity_loss: (n, E) exact E[loss_j | x] (the tie-break priority; for regression the model's squared error
    and the experts' noise variances); answers: (n, E) realised answers (column 0: the fixed model's, fixed);
    class_accuracy: (n, C, E) P(entity j right | x, y = c), needed with a posterior (None: y is known)."""
    n, entities = entity_loss.shape
    members = set_members(entities)
    table = np.full((n, 2 ** entities), np.inf)
    for mask in range(1, 2 ** entities):
        chosen = members[mask]
        if kind == "regression":
            loss = _mean_loss(entity_loss, answers, y, chosen, drawn)
        elif drawn:
            loss = 1.0 - _vote_accuracy(entity_loss, chosen, num_classes, class_accuracy, posterior)
        else:
            loss = _fixed_vote_loss(entity_loss, answers, y, chosen, num_classes)
        table[:, mask] = loss + costs[chosen].sum()
    return table


def _mean_loss(entity_loss: np.ndarray, answers: np.ndarray, y: np.ndarray, chosen: np.ndarray,
               drawn: bool) -> np.ndarray:
    """E[(mean of the answers - y)^2]: the model's error is fixed, the experts' noises independent and centred."""
    if not drawn:
        return (answers[:, chosen].mean(axis=1) - y) ** 2
    return entity_loss[:, chosen].sum(axis=1) / chosen.size ** 2


def _vote_accuracy(entity_loss: np.ndarray, chosen: np.ndarray, num_classes: int,
                   class_accuracy: np.ndarray | None, posterior: np.ndarray | None) -> np.ndarray:
    """P(the majority vote with the Bayes tie-break is right | x), under the exact posterior when given."""
    order = chosen[np.argsort(entity_loss[:, chosen], axis=1, kind="stable")]  # (n, s) priority order per row
    if class_accuracy is None or posterior is None:
        right = np.take_along_axis(1.0 - entity_loss, order, axis=1)[:, None, :]  # (n, 1, s): y is known
        weight = np.ones((entity_loss.shape[0], 1))
    else:
        right = np.take_along_axis(class_accuracy, order[:, None, :], axis=2)     # (n, C, s)
        weight = posterior
    size = chosen.size
    bits = ((np.arange(2 ** size)[:, None] >> np.arange(size)[None, :]) & 1).astype(bool)  # (2**s, s)
    chance = np.where(bits[None, None], right[:, :, None, :], 1.0 - right[:, :, None, :]).prod(axis=3)
    return ((chance @ vote_win_table(size, num_classes)) * weight).sum(axis=1)


def _fixed_vote_loss(entity_loss: np.ndarray, answers: np.ndarray, y: np.ndarray, chosen: np.ndarray,
                     num_classes: int) -> np.ndarray:
    """The 0-1 loss of the vote over fixed answers, ties to the voter of lowest loss (then lower index)."""
    entities = entity_loss.shape[1]
    rank = np.argsort(np.argsort(entity_loss + 1e-9 * np.arange(entities), axis=1, kind="stable"), axis=1)
    weights = np.zeros(entity_loss.shape)
    weights[:, chosen] = (entities - rank[:, chosen]).astype(np.float64)
    return (aggregate("classification", answers, weights, num_classes) != y).astype(np.float64)


def truth_set_costs(truth: AllocationTruth, model_answer: np.ndarray) -> np.ndarray:
    """(n, 2**E) exact expected cost of every set of entities under the task's vote with the Bayes tie-break
    (`set_costs`), with `model_answer` as the fixed model's (a one-stage method has its own)."""
    model_loss = expected_model_loss(truth.kind, model_answer, truth.y, truth.posterior)
    entity_loss = np.column_stack([model_loss, truth.expert_expected_loss])
    answers = np.column_stack([model_answer, truth.answers[:, 1:]])
    class_accuracy = None
    if truth.expert_class_loss is not None:
        model_right = (model_answer.astype(np.int64)[:, None] == np.arange(truth.num_classes)[None, :])
        class_accuracy = np.concatenate([model_right[:, :, None], 1.0 - truth.expert_class_loss], axis=2)
    return expected_set_costs(truth.kind, truth.costs, entity_loss, answers, truth.y, truth.num_classes,
                              truth.answers_drawn, class_accuracy, truth.posterior)
