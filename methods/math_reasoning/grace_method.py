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
from methods.math_reasoning.teacher_scoring import GradientScorer


class Grace(GradientScorer):
    """GRACE: how poorly the held-out prompts' gradients are covered by the rest's (preconditioned) spread."""

    term: ClassVar[str] = "grace"

    def __init__(self, dim: int = 512, n_splits: int = 10, test_fraction: float = 0.1, alpha: float = 1e-3,
                 batch_size: int = 128, gradient_batch: int = 32) -> None:
        super().__init__(dim, batch_size, gradient_batch)
        if not isinstance(n_splits, int) or n_splits < 1:
            raise ValueError(f"n_splits must be a positive integer, got {n_splits!r}")
        if not 0 < test_fraction < 1:
            raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")
        if not 0 <= alpha <= 1:
            raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
        self.n_splits, self.test_fraction, self.alpha = n_splits, test_fraction, alpha

    def score_gradients(self, gradients: np.ndarray, prompt_ids: np.ndarray, ctx: RunContext) -> float:
        scores = grace_score(gradients, prompt_ids, alpha=self.alpha, n_splits=self.n_splits,
                             test_fraction=self.test_fraction, seed0=self.n_splits * ctx.seed)
        return getattr(scores, self.term)


class GraceBias(Grace):
    """GRACE-Bias: the held-out mean gradient's preconditioned norm (flags pathological teachers)."""

    term: ClassVar[str] = "bias"


class GraceVariance(Grace):
    """GRACE-Variance: the held-out gradients' centred preconditioned spread."""

    term: ClassVar[str] = "variance"
