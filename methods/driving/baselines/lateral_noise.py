"""The logged future with Gaussian noise on every lateral coordinate (seeded by the run's seed).

L2 grows with sigma (E|N(0, s^2)| = s sqrt(2/pi) per step when only x is perturbed); a frame is
FCP-correct with probability about P(|N(0, s^2)| < 0.5 m), so FCP rises from 0 as sigma grows.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.driving.params import LateralNoiseParams
from methods.driving.task import PlanningInputs


class LateralNoise(Method[LateralNoiseParams]):
    """Oracle waypoints plus N(0, sigma^2) metres on x, independently per waypoint."""

    reads_hidden_labels = True  # a reference: it plans from the logged future

    def run(self, inputs: PlanningInputs, ctx: RunContext) -> np.ndarray:
        rng = np.random.default_rng(ctx.seed)
        plans = np.array(inputs.oracle_trajectory, dtype=np.float64)
        plans[..., 0] += rng.normal(0.0, self.params.sigma, plans.shape[:2])
        return plans
