"""G-Vendi (Jung et al. 2025, Prismatic Synthesis; GRACE's diversity baseline): the entropy of the eigenvalues
of the unit-normalised gradient covariance.

Higher entropy means more diverse data, which the baseline takes to be the better teacher; the method's
`score` is therefore the negated entropy, so that lower is better like every other scorer's (the recorded
per-teacher `score_*` figures are negative; the entropy itself is -score).
"""
from __future__ import annotations

import numpy as np

from harness.context import RunContext
from methods.math_reasoning.grace import g_vendi
from methods.math_reasoning.params import GradientParams
from methods.math_reasoning.teacher_scoring import GradientScorer


class GVendi(GradientScorer[GradientParams]):
    def score_gradients(self, gradients: np.ndarray, prompt_ids: np.ndarray, ctx: RunContext) -> float:
        return -g_vendi(gradients)
