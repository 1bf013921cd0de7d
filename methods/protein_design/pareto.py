"""Two-objective Pareto analysis (both maximised): the non-dominated set, the dominated hypervolume above a
reference point, and the win rate of one set of designs over another."""
from __future__ import annotations

import numpy as np


def dominates(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) bool: row i of `a` is at least as good as row j of `b` on every objective and better on one."""
    at_least = (a[:, None, :] >= b[None, :, :]).all(axis=2)
    better = (a[:, None, :] > b[None, :, :]).any(axis=2)
    return np.asarray(at_least & better)  # numpy's stubs allow a scalar here


def front(points: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated points (duplicates kept once)."""
    dominated = dominates(points, points).any(axis=0)
    keep = np.flatnonzero(~dominated)
    _, first = np.unique(points[keep], axis=0, return_index=True)
    return keep[np.sort(first)]


def hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """Area dominated by `points` (n, 2) and dominating `reference` (2,): a sweep over the front by the first
    objective, descending."""
    inside = points[(points > reference).all(axis=1)]
    if inside.size == 0:
        return 0.0
    ordered = inside[front(inside)]
    ordered = ordered[np.argsort(-ordered[:, 0])]
    area, height = 0.0, reference[1]
    for x, y in ordered:
        if y > height:
            area += (x - reference[0]) * (y - height)
            height = y
    return float(area)


def win_rate(designs: np.ndarray, references: np.ndarray) -> float:
    """Share of (design, reference) pairs in which the design Pareto-dominates the reference, minus the share
    in which it is dominated, in [-1, 1]: 0 for two sets from one distribution."""
    if designs.size == 0 or references.size == 0:
        return float("nan")
    return float(dominates(designs, references).mean() - dominates(references, designs).T.mean())
