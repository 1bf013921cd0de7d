"""A run's predictions table graded against its puzzles: (puzzles, answers) arrays the metrics read.

Predictions table, one row per answer: `puzzle` (id), `sample` (0, 1, ...: the order the answers were drawn in),
`answer` (the raw text), `score` (the method's own confidence in it, for best-of-k; NaN when it has none) and
`images` (how many intermediate images came with it). Puzzles may have different numbers of answers; a puzzle
with none is graded as one unanswered answer.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from methods.visual_reasoning.grading import grade
from methods.visual_reasoning.puzzle import Puzzle

COLUMNS = ("puzzle", "sample", "answer", "score", "images")


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


def scored_answers(puzzles: Mapping[str, Puzzle], predictions: pd.DataFrame) -> ScoredAnswers:
    """Grade every answer of `predictions`; a `ValueError` names an unknown puzzle id or a repeated sample."""
    missing = [column for column in COLUMNS if column not in predictions.columns]
    if missing:
        raise ValueError(f"the predictions table lacks column(s) {', '.join(missing)} (it needs {', '.join(COLUMNS)})")
    unknown = set(predictions["puzzle"]) - set(puzzles)
    if unknown:
        raise ValueError(f"{len(unknown)} answer(s) to puzzles not in this set, e.g. '{sorted(unknown)[0]}'")
    if predictions.duplicated(["puzzle", "sample"]).any():
        twice = predictions[predictions.duplicated(["puzzle", "sample"])].iloc[0]
        raise ValueError(f"puzzle '{twice['puzzle']}' has sample {twice['sample']} more than once")
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
        graded = grade(puzzles[ids[r]], "" if text is None else str(text))
        for name, value in (("correct", graded.correct), ("answered", graded.answered), ("partial", graded.partial),
                            ("tau", graded.tau), ("optimal", graded.optimal), ("score", score), ("images", images)):
            arrays[name][r, k] = value
    for r in np.flatnonzero(counts == 0):  # no answer at all: one unanswered answer
        graded = grade(puzzles[ids[r]], "")
        for name, value in (("correct", 0.0), ("answered", 0.0), ("images", 0.0), ("partial", graded.partial),
                            ("tau", graded.tau), ("optimal", graded.optimal)):
            arrays[name][r, 0] = value
    return ScoredAnswers(np.maximum(counts, 1), **arrays)
