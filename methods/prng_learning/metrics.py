"""Per-position exact-match accuracy of the next number on held-out sequences, and what follows from it: the
mean over the in-context positions, the last position's, and the first position reaching 0.9 / 0.99 (the
in-context length whose log-log slope against m the paper finds near 1/2).

Positions count the numbers seen: position i is the guess of x_i from x_0 .. x_{i-1}; position 0 has no context
and is not scored. A threshold never reached gives the sequence length (censored: the report says so).

The half period m/2 splits the positions: from position m/2 on, x_{i - m/2} is in the context, and for a
truncated LCG its top bit is the complement of x_i's (s_{i + m/2} = s_i + m/2 mod m), so a copy-and-flip is exact
there; before m/2 no output has that partner, and a prediction must come from inferring the generator."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import Metric


@dataclass(frozen=True)
class Scored:
    """(n, L) true numbers and guesses (guess -1: none) of one run, and the half period m/2 of its generator
    (0: unknown, the sequence length)."""

    numbers: np.ndarray
    guesses: np.ndarray
    half_period: int = 0

    @property
    def correct(self) -> np.ndarray:
        return self.guesses[:, 1:] == self.numbers[:, 1:]


def position_accuracy(scored: Scored) -> np.ndarray:
    """Accuracy at positions 1 .. L-1 (index 0 of the result is position 1)."""
    return scored.correct.mean(axis=0)


def split_accuracy(scored: Scored, after: bool) -> float:
    """Accuracy at positions 1 .. m/2 - 1 (before the half period) or m/2 .. L-1 (from it on); nan where the
    sequences hold no such position."""
    cut = scored.half_period or scored.numbers.shape[1]
    part = scored.correct[:, cut - 1:] if after else scored.correct[:, :cut - 1]
    return float(part.mean()) if part.size else float("nan")


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
PRE_HALF_ACCURACY = Metric("pre_half_accuracy", lambda s: split_accuracy(s, after=False), higher_is_better=True,
                           description="exact-match accuracy at positions 1 .. m/2 - 1, where no output's "
                                       "half-period partner is in the context (copy-and-flip cannot work)")
POST_HALF_ACCURACY = Metric("post_half_accuracy", lambda s: split_accuracy(s, after=True), higher_is_better=True,
                            description="exact-match accuracy at positions m/2 .. L-1, where x_{i - m/2} is in the "
                                        "context (nan if L <= m/2)")
