"""G-Norm (GRACE's alignment baseline): tr Σ(D) = mean ‖h‖² of the teacher's projected gradients.

Lower is better as it stands: small gradients mean the student already nearly fits the teacher's data.
"""
from __future__ import annotations

import numpy as np

from harness.context import RunContext
from methods.math_reasoning.grace import g_norm
from methods.math_reasoning.params import GradientParams
from methods.math_reasoning.teacher_scoring import GradientScorer


class GNorm(GradientScorer[GradientParams]):
    def score_gradients(self, gradients: np.ndarray, prompt_ids: np.ndarray, ctx: RunContext) -> float:
        return g_norm(gradients)
