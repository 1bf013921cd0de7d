"""What a neural-encoding method sees (`EncodingInputs`), what it returns (per column, per evaluated session,
a predictions array) and what it is scored against (`EncodingTruth`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TrainSession:
    """A session's training trials, every modality observed."""

    video: np.ndarray      # (trials, T, H, W)
    spikes: np.ndarray     # (trials, T, N)
    behaviour: np.ndarray  # (trials, T, 4)


@dataclass(frozen=True)
class TestView:
    """A session's test trials as one column shows them: entries that are not inputs are zero."""

    spikes: np.ndarray             # (trials, T, N)
    behaviour: np.ndarray          # (trials, T, 4)
    video: np.ndarray | None       # (trials, T, H, W), None where the column hides the stimulus
    times: np.ndarray              # target time bins
    units: np.ndarray              # target neurons, or behaviour channels


@dataclass(frozen=True)
class Oracle:
    """What only the reference predictors read: the simulation's rates and, per test trial, the mean response
    of the other repeats of its movie (the trial-average predictor). `hide_test_labels` randomises it."""

    rates: np.ndarray          # (trials, T, N)
    repeat_mean: np.ndarray    # (trials, T, N)


@dataclass(frozen=True)
class EncodingInputs:
    train: tuple[TrainSession, ...]              # every session a method may train on
    test: dict[str, tuple[TestView, ...]]        # per column, per evaluated session
    oracle: tuple[Oracle, ...] | None = None     # per evaluated session (simulated data only)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.test)


Predictions = dict[str, list[np.ndarray]]  # column -> per evaluated session (trials, len(times), len(units))


@dataclass(frozen=True)
class Target:
    """One column's targets in one session: values (trials, times, units) and the repeat structure."""

    values: np.ndarray
    times: np.ndarray
    units: np.ndarray
    movie: np.ndarray | None   # (trials,) test movie ids, None without repeats


@dataclass(frozen=True)
class EncodingTruth:
    targets: dict[str, tuple[Target, ...]]   # per column, per evaluated session
