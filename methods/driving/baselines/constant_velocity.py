"""Constant velocity: extrapolate the ego's current velocity for 3 s, the classic kinematic floor.

It ignores the command, so its FCP measures how long the logged path stays straight ahead
after a turn command; it drifts out of turns, which the collision rates see.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.driving.task import PlanningInputs

STEP_S = 0.5


class ConstantVelocity(Method):
    """Waypoint i (1..6) at i x 0.5 s x the ego velocity of the keyframe."""

    def run(self, inputs: PlanningInputs, ctx: RunContext) -> np.ndarray:
        times = STEP_S * np.arange(1, 7)
        return np.asarray(inputs.ego_velocity, float)[:, None, :] * times[None, :, None]
