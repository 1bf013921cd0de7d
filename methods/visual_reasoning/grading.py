"""One answer text graded against one puzzle's truth: extracted with `answers`, then checked the task's way.

Mazes: any path from start to goal over floor is correct (path validity), `optimal` when it is also shortest.
Jigsaws: exact placement is correct; `partial` is the share of positions right and `tau` Kendall's tau between
the answered and the true placement. Search: the option letter. Charts: ChartQA's relaxed accuracy (within 5 %
of the true value). An answer with nothing to extract is unanswered, wrong, and scores partial 0 and tau 0 (a
random placement's expectation), never worse than a guess.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from methods.visual_reasoning import answers
from methods.visual_reasoning.generators.maze import walk
from methods.visual_reasoning.puzzle import Puzzle

RELAXED_TOLERANCE = 0.05  # ChartQA's relaxed accuracy


@dataclass(frozen=True)
class Grade:
    answered: bool
    correct: bool
    partial: float = float("nan")  # jigsaw: share of positions right
    tau: float = float("nan")      # jigsaw: Kendall's tau with the true placement
    optimal: float = float("nan")  # maze: a valid path of the shortest length (1.0) or not (0.0)


def kendall_tau(answered: np.ndarray, true: np.ndarray) -> float:
    """Kendall's tau between two permutations (no ties: tau-a equals scipy's tau-b). Written out because
    `scipy.stats.kendalltau` costs ~0.3 ms a call, most of the time of scoring 10,000 jigsaw answers."""
    n = len(true)
    da = np.sign(answered[:, None] - answered[None, :])
    dt = np.sign(true[:, None] - true[None, :])
    return float((da * dt).sum() / (n * (n - 1)))


def grade(puzzle: Puzzle, text: str) -> Grade:
    truth = puzzle.truth
    if puzzle.kind == "maze":
        path = answers.moves(text)
        if path is None:
            return Grade(False, False, optimal=0.0)
        valid = walk(truth["holes"], truth["start"], path) == truth["goal"]
        return Grade(True, valid, optimal=float(valid and len(path) == truth["shortest"]))
    if puzzle.kind == "jigsaw":
        true = truth["placement"]
        placement = answers.permutation(text, len(true))
        if placement is None:
            return Grade(False, False, partial=0.0, tau=0.0)
        given = np.asarray(placement)
        return Grade(True, bool((given == true).all()), float((given == true).mean()), kendall_tau(given, true))
    if puzzle.kind == "search":
        letter = answers.option_letter(text, puzzle.query["options"])
        return Grade(letter is not None, letter == truth["option"])
    value = answers.number(text)
    if value is None:
        return Grade(False, False)
    return Grade(True, abs(value - truth["value"]) <= RELAXED_TOLERANCE * abs(truth["value"]))
