"""L2 displacement error of planned ego waypoints, and the two ways papers aggregate it over time.

Per step j (0.5 s each), the error is the Euclidean distance between the planned and the
logged ego position, averaged over the scored frames (SparseDrive's `compute_L2` summed
over samples, divided by their number). A horizon t in {1, 2, 3} s is then read as
- `stp3` (ST-P3, VAD, SparseDrive, FlowAD): the mean of the per-step values up to step 2t;
- `uniad` (UniAD's other `planning_evaluation_strategy`): the per-step value at step 2t.
"avg" is the mean of the 1 s, 2 s and 3 s values under either convention (spec `flowad.md`).
The same aggregation serves the collision rate (`collision.py`).
"""
from __future__ import annotations

from typing import Literal

import numpy as np

Convention = Literal["stp3", "uniad"]
CONVENTIONS: tuple[Convention, ...] = ("stp3", "uniad")
HORIZONS_S = (1, 2, 3)
STEP_S = 0.5


def l2_per_frame(planned: np.ndarray, logged: np.ndarray) -> np.ndarray:
    """(N, 6) Euclidean errors between (N, 6, 2) planned and logged positions."""
    return np.linalg.norm(np.asarray(planned, float) - np.asarray(logged, float), axis=-1)


def at_horizon(per_step: np.ndarray, seconds: int, convention: Convention) -> float:
    """The value at `seconds` of a per-step curve (6 values, one per 0.5 s) under `convention`."""
    steps = int(round(seconds / STEP_S))
    if convention == "stp3":
        return float(np.mean(per_step[:steps]))
    if convention == "uniad":
        return float(per_step[steps - 1])
    raise ValueError(f"unknown convention {convention!r}; use one of {', '.join(CONVENTIONS)}")


def horizon_average(per_step: np.ndarray, convention: Convention) -> float:
    """The "avg" column: the mean of the 1 s, 2 s and 3 s values."""
    return float(np.mean([at_horizon(per_step, t, convention) for t in HORIZONS_S]))
