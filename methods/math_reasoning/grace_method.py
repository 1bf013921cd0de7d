"""GRACE (Panigrahi et al., ICLR 2026, arXiv 2511.02833) as a teacher-scoring method, with its two terms.

`grace` is tr(Σ̂⁻¹ Σ_te) averaged over 10 prompt-level cross-validation splits (`grace.grace_score`, the
authors' `GRACE_computation.py`); `grace_bias` is its mean-gradient term μᵀΣ̂⁻¹μ and `grace_variance` the
centred rest, which the paper's notes say carries most of the predictive power. All three are lower-is-better
as they stand. Defaults follow `grace.sh`: d = 512, 10 splits, 10 % held out, α = 1e-3. The response-length
rescaling in the notes is not in the released code and not here (spec: shared/papers/grace.md).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from harness.context import RunContext
from methods.math_reasoning.grace import grace_score
from methods.math_reasoning.params import GraceParams
from methods.math_reasoning.teacher_scoring import GradientScorer


class Grace(GradientScorer[GraceParams]):
    """GRACE: how poorly the held-out prompts' gradients are covered by the rest's (preconditioned) spread."""

    term: ClassVar[str] = "grace"

    def score_gradients(self, gradients: np.ndarray, prompt_ids: np.ndarray, ctx: RunContext) -> float:
        p = self.params
        scores = grace_score(gradients, prompt_ids, alpha=p.alpha, n_splits=p.n_splits,
                             test_fraction=p.test_fraction, seed0=p.n_splits * ctx.seed)
        return getattr(scores, self.term)


class GraceBias(Grace):
    """GRACE-Bias: the held-out mean gradient's preconditioned norm (flags pathological teachers)."""

    term: ClassVar[str] = "bias"


class GraceVariance(Grace):
    """GRACE-Variance: the held-out gradients' centred preconditioned spread."""

    term: ClassVar[str] = "variance"
