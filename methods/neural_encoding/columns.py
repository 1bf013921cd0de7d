"""The seven task columns of OmniMouse's table, each a mask over one trial's tokens: which neural values,
behaviour channels and video frames are inputs, and which are targets. The mask *is* the task.

Our reading [inferred]: in the neural columns the behaviour is observed; forecasting sees every neuron's first
`context` bins and predicts the rest; population completion sees a fixed half of the neurons (even indices)
and predicts the other half over the whole trial; the behaviour columns see the neurons alone (no video, no
other behaviour channel, which would give pupil away through running) and predict their channel(s).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RUNNING, PUPIL, GAZE_X, GAZE_Y = range(4)


@dataclass(frozen=True)
class Column:
    name: str
    video: bool
    neural: str | None            # "forecast", "population" or None (a behaviour column)
    behaviour_targets: tuple[int, ...] = ()

    @property
    def is_neural(self) -> bool:
        return self.neural is not None

    def target_times(self, time_bins: int) -> np.ndarray:
        return np.arange(context_bins(time_bins), time_bins) if self.neural == "forecast" else np.arange(time_bins)

    def target_units(self, neurons: int) -> np.ndarray:
        """Neuron indices (neural columns) or behaviour channels (behaviour columns) that are predicted."""
        if self.neural == "population":
            return np.arange(1, neurons, 2)
        if self.neural == "forecast":
            return np.arange(neurons)
        return np.array(self.behaviour_targets)

    def neural_input(self, time_bins: int, neurons: int) -> np.ndarray:
        """(T, N) bool: the neural values the model sees."""
        seen = np.zeros((time_bins, neurons), dtype=bool)
        if self.neural == "forecast":
            seen[: context_bins(time_bins)] = True
        elif self.neural == "population":
            seen[:, 0::2] = True
        else:
            seen[:] = True
        return seen

    def behaviour_input(self) -> np.ndarray:
        """(4,) bool: the behaviour channels the model sees (all of them in a neural column, none otherwise)."""
        return np.full(4, self.is_neural)


def context_bins(time_bins: int) -> int:
    """Forecasting's context: the first half of the trial."""
    return time_bins // 2


COLUMNS = (
    Column("forecast", video=False, neural="forecast"),
    Column("forecast_stim", video=True, neural="forecast"),
    Column("population", video=False, neural="population"),
    Column("pop_stim", video=True, neural="population"),
    Column("gaze", video=False, neural=None, behaviour_targets=(GAZE_X, GAZE_Y)),
    Column("pupil", video=False, neural=None, behaviour_targets=(PUPIL,)),
    Column("running", video=False, neural=None, behaviour_targets=(RUNNING,)),
)
BY_NAME = {column.name: column for column in COLUMNS}
