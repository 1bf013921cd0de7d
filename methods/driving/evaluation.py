"""One scoring pass: plans aligned with the log's scored keyframes, per-step curves computed once.

Scored keyframes are those whose 3 s future is logged (SparseDrive/FlowAD skip the others),
for every metric and convention alike, so conventions differ only in what they are meant to
differ in: aggregation over time (`l2.py`) and collision geometry (`collision.py`).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from methods.driving.collision import Geometry, collisions
from methods.driving.fcp import FCPResult, FirstFrame, NeverCorrected, frames_before_correct_planning
from methods.driving.l2 import l2_per_frame
from methods.driving.log import PlanningLog


class PlanningEvaluation:
    """Plans (N, 6, 2) for the frames of `log` (same order); metrics read its cached curves."""

    def __init__(self, log: PlanningLog, plans: np.ndarray) -> None:
        scored = log.complete
        self.log = log.take(np.flatnonzero(scored))
        self.plans = np.asarray(plans, dtype=np.float64)[scored]
        self._collision: dict[Geometry, np.ndarray] = {}
        self._fcp: dict[tuple[str, str], FCPResult] = {}

    @property
    def frames(self) -> int:
        return len(self.log)

    @cached_property
    def l2_per_step(self) -> np.ndarray:
        """(6,) mean L2 error (m) at each 0.5 s step over the scored frames."""
        if not self.frames:
            return np.full(6, np.nan)
        return l2_per_frame(self.plans, self.log.gt_trajectory).mean(axis=0)

    def collision_per_step(self, geometry: Geometry) -> np.ndarray:
        """(6,) collision rate (%) at each step; a step where the logged path collides too counts as none
        but stays in the denominator (ST-P3's and SparseDrive's `obj_box_col`)."""
        if geometry not in self._collision:
            if not self.frames:
                return np.full(6, np.nan)
            log = self.log
            planned = collisions(geometry, self.plans, log.boxes, log.box_frame, log.box_step)
            logged = collisions(geometry, log.gt_trajectory, log.boxes, log.box_frame, log.box_step)
            self._collision[geometry] = 100.0 * (planned & ~logged).mean(axis=0)
        return self._collision[geometry]

    def logged_collision_per_step(self, geometry: Geometry) -> np.ndarray:
        """(6,) rate (%) at which the logged path itself collides: the excluded steps (released `obj_col`)."""
        log = self.log
        return 100.0 * collisions(geometry, log.gt_trajectory, log.boxes, log.box_frame, log.box_step).mean(axis=0)

    def fcp(self, never_corrected: NeverCorrected = "numerator", first_frame: FirstFrame = "skip") -> FCPResult:
        key = (never_corrected, first_frame)
        if key not in self._fcp:
            self._fcp[key] = frames_before_correct_planning(
                self.log.scene, self.log.gt_trajectory[:, -1, 0], self.plans[:, -1, 0],
                never_corrected=never_corrected, first_frame=first_frame)
        return self._fcp[key]
