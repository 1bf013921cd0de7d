"""The family's numpy measurements: the spectral distance between two matrices, linear CKA between two sets of
representations, a learning curve's steps to a loss threshold and area (AUC), and accuracy against its floor and
as a share of the source's (the paper's "% of the source's performance")."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np


def spectral_distance(a: np.ndarray, b: np.ndarray) -> float:
    """||sigma_k(a) - sigma_k(b)|| / ||sigma_k(a)|| over the top k = min(rank bounds of a and b) singular
    values: 0 for equal spectra, whatever the matrices' shapes (a student's FFN against its source's)."""
    sa, sb = np.linalg.svd(a, compute_uv=False), np.linalg.svd(b, compute_uv=False)
    k = min(len(sa), len(sb))
    return float(np.linalg.norm(sa[:k] - sb[:k]) / np.linalg.norm(sa[:k]))


def linear_cka(x: np.ndarray, y: np.ndarray) -> float:
    """Linear CKA (Kornblith et al. 2019) of (n, p) and (n, q) representations of the same n inputs:
    ||Yc' Xc||_F^2 / (||Xc' Xc||_F ||Yc' Yc||_F) with column-centred Xc, Yc; invariant to orthogonal maps and
    isotropic scaling of either side, 1 for x = y."""
    xc, yc = x - x.mean(axis=0), y - y.mean(axis=0)
    cross = np.linalg.norm(yc.T @ xc) ** 2
    return float(cross / (np.linalg.norm(xc.T @ xc) * np.linalg.norm(yc.T @ yc)))


def steps_to_threshold(steps: np.ndarray, losses: np.ndarray, threshold: float) -> float:
    """The first recorded step whose loss is at or below `threshold`; censored at one evaluation interval past
    the last step when none is (so a paired test keeps the seed: 'not within the budget' ranks last)."""
    hits = np.flatnonzero(losses <= threshold)
    if hits.size:
        return float(steps[hits[0]])
    interval = steps[-1] - steps[-2] if len(steps) > 1 else 1.0
    return float(steps[-1] + interval)


def curve_auc(steps: np.ndarray, losses: np.ndarray) -> float:
    """The mean loss over the recorded range: trapezoid-rule area divided by its width (lower: learns sooner)."""
    if len(steps) < 2:
        return float(losses[0])
    return float(np.trapezoid(losses, steps) / (steps[-1] - steps[0]))


def majority_floor(answers: Sequence[str], tasks: Sequence[str]) -> float:
    """The accuracy of answering every line with its task type's most common answer (in these very lines): what
    knowing the task type, and nothing of the question, is worth."""
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    for answer, task in zip(answers, tasks, strict=True):
        by_task[task][answer] += 1
    return sum(max(counts.values()) for counts in by_task.values()) / len(answers)


def source_share(accuracy: float, source_accuracy: float) -> float:
    """The student's accuracy as a share of its source's (the paper's "% of the source's performance")."""
    return accuracy / source_accuracy if source_accuracy > 0 else float("nan")


def share_above_floor(accuracy: float, source_accuracy: float, floor: float) -> float:
    """The share of the source's gain over the majority floor that the student keeps: 0 at the floor, 1 at the
    source (NaN for a source at or below its floor, which has no gain to keep)."""
    return (accuracy - floor) / (source_accuracy - floor) if source_accuracy > floor else float("nan")


def task_leads(predicted: Sequence[str], answers: Sequence[str], tasks: Sequence[str]) -> dict[str, float]:
    """Per task type, the accuracy of `predicted` minus the type's majority floor (on these very lines)."""
    by_task: dict[str, list[int]] = defaultdict(list)
    for i, task in enumerate(tasks):
        by_task[task].append(i)
    return {task: sum(predicted[i] == answers[i] for i in rows) / len(rows)
            - majority_floor([answers[i] for i in rows], [task] * len(rows)) for task, rows in by_task.items()}


def learned_tasks(predicted: Sequence[str], answers: Sequence[str], tasks: Sequence[str], margin: float
                  ) -> dict[str, float]:
    """The task types on which `predicted` (a source's answers to dev questions) beats its majority floor by at
    least `margin`, each with its margin: the types whose performance a student can inherit a share of."""
    return {task: lead for task, lead in task_leads(predicted, answers, tasks).items() if lead >= margin - 1e-12}
