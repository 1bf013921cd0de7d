"""Chance level: uniform random scores, seeded by the run's seed (AUROC about 50)."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.my_family.task import ScoringInputs


class RandomScores(Method):
    """One uniform random score per test point; the same seed gives the same scores. No parameters (a bare
    `Method`): its `params_model` is `harness.MethodParams`, whose `version` is "1"."""

    def run(self, inputs: ScoringInputs, ctx: RunContext) -> np.ndarray:
        return np.random.default_rng(ctx.seed).random(inputs.x_test.shape[0])
