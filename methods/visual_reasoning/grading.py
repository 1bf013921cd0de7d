"""One answer text graded against one puzzle's truth: extracted with `answers`, then checked the task's way; and
a run's predictions table (`VisualPuzzles.predictions_schema`) graded into the arrays the metrics read.

Mazes: any path from start to goal over floor is correct (path validity), `optimal` when it is also shortest.
Jigsaws: exact placement is correct; `partial` is the share of positions right and `tau` Kendall's tau between
the answered and the true placement. Search: the option letter. Charts: ChartQA's relaxed accuracy (within 5 %
of the true value). An answer with nothing to extract is unanswered, wrong, and scores partial 0 and tau 0 (a
random placement's expectation), never worse than a guess. Puzzles may have different numbers of answers; a
puzzle with none is graded as one unanswered answer.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

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


@dataclass(frozen=True)
class ScoredAnswers:
    """(P, N) arrays over puzzles and answers (N: the most answers any puzzle has; NaN beyond a puzzle's own)."""

    counts: np.ndarray    # (P,) answers per puzzle
    correct: np.ndarray   # 1.0 / 0.0
    answered: np.ndarray  # 1.0 / 0.0
    partial: np.ndarray
    tau: np.ndarray
    optimal: np.ndarray
    score: np.ndarray
    images: np.ndarray


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


def scored_answers(puzzles: Mapping[str, Puzzle], predictions: pd.DataFrame) -> ScoredAnswers:
    """Grade every answer of `predictions`, a checked table (known puzzles, each sample once), in sample order;
    an empty answer (NaN, as a CSV's empty field reads) is unanswered."""
    ordered = predictions.sort_values(["puzzle", "sample"], kind="stable")
    rows = {name: i for i, name in enumerate(puzzles)}
    row = ordered["puzzle"].map(rows).to_numpy()
    rank = ordered.groupby("puzzle", sort=False).cumcount().to_numpy()
    counts = np.bincount(row, minlength=len(puzzles))
    width = max(1, int(counts.max(initial=0)))
    arrays = {name: np.full((len(puzzles), width), np.nan) for name in ("correct", "answered", "partial", "tau",
                                                                         "optimal", "score", "images")}
    ids = list(puzzles)
    for r, k, text, score, images in zip(row, rank, ordered["answer"], ordered["score"], ordered["images"],
                                         strict=True):
        graded = grade(puzzles[ids[r]], text if isinstance(text, str) else "")
        for name, value in (("correct", graded.correct), ("answered", graded.answered), ("partial", graded.partial),
                            ("tau", graded.tau), ("optimal", graded.optimal), ("score", score), ("images", images)):
            arrays[name][r, k] = value
    for r in np.flatnonzero(counts == 0):  # no answer at all: one unanswered answer
        graded = grade(puzzles[ids[r]], "")
        for name, value in (("correct", 0.0), ("answered", 0.0), ("images", 0.0), ("partial", graded.partial),
                            ("tau", graded.tau), ("optimal", graded.optimal)):
            arrays[name][r, 0] = value
    return ScoredAnswers(np.maximum(counts, 1), **arrays)
