"""Per-position exact-match accuracy of the next number on held-out sequences, and what follows from it: the
mean over the in-context positions, the last position's, and the first position reaching 0.9 / 0.99 (the
in-context length whose log-log slope against m the paper finds near 1/2).

Positions count the numbers seen: position i is the guess of x_i from x_0 .. x_{i-1}; position 0 has no context
and is not scored. A threshold never reached gives the sequence length (censored: the report says so)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import Metric


@dataclass(frozen=True)
class Scored:
    """(n, L) true numbers and guesses (guess -1: none) of one run."""

    numbers: np.ndarray
    guesses: np.ndarray

    @property
    def correct(self) -> np.ndarray:
        return self.guesses[:, 1:] == self.numbers[:, 1:]


def position_accuracy(scored: Scored) -> np.ndarray:
    """Accuracy at positions 1 .. L-1 (index 0 of the result is position 1)."""
    return scored.correct.mean(axis=0)


def first_position(accuracy: np.ndarray, threshold: float) -> float:
    """The first position (1-based in-context count) whose accuracy reaches `threshold`; len + 1 if none."""
    hits = np.flatnonzero(accuracy >= threshold)
    return float(hits[0] + 1) if hits.size else float(len(accuracy) + 1)


ACCURACY = Metric("accuracy", lambda s: float(s.correct.mean()), higher_is_better=True,
                  description="exact-match accuracy of the next number, over every in-context position 1..L-1")
FINAL_ACCURACY = Metric("final_accuracy", lambda s: float(s.correct[:, -1].mean()), higher_is_better=True,
                        description="exact-match accuracy at the last position")
LATE_ACCURACY = Metric("late_accuracy", lambda s: float(s.correct[:, s.correct.shape[1] // 2:].mean()),
                       higher_is_better=True,
                       description="exact-match accuracy over the second half of the positions")
POS_90 = Metric("pos_90", lambda s: first_position(position_accuracy(s), 0.9), higher_is_better=False,
                description="first in-context position with accuracy >= 0.9 (L if never)")
POS_99 = Metric("pos_99", lambda s: first_position(position_accuracy(s), 0.99), higher_is_better=False,
                description="first in-context position with accuracy >= 0.99 (L if never)")
