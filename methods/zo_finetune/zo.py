"""The two-point zeroth-order step shared by QZO and MeZO, with QZO's directional-derivative clipping (DDC).

One step (QZO Alg. 1; MeZO `trainer.py::zo_step`/`zo_update`): draw a seed; L+ = loss at x + eps z;
L- = loss at x - eps z; restore; d = (L+ - L-) / (2 eps); clip d to [-C, C] (QZO's DDC; `clip=None` is MeZO
and QZO without DDC); x <- x - lr (d z + wd x) along the same z. Two forward passes, no backward, no stored
direction. The training loss reported is L+, as in both codebases.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from methods.zo_finetune.perturbation import SeededPerturbation

SEED_RANGE = 1_000_000_000  # MeZO draws its step seeds from [0, 1e9)


@dataclass(frozen=True)
class ZOStep:
    """What one step saw: its seed (logged, so any step can be replayed), both losses, d before and after DDC."""

    seed: int
    loss_plus: float
    loss_minus: float
    projected_grad: float
    clipped_grad: float


class ZerothOrderOptimizer:
    """SPSA over `params` with MeZO's in-place seeded perturbation; `clip` is QZO's C (None: no clipping)."""

    def __init__(self, params: Sequence[torch.Tensor], learning_rate: float, eps: float = 1e-3,
                 clip: float | None = None, weight_decay: float = 0.0, decays: Sequence[bool] | None = None,
                 floors: Sequence[float | None] | None = None, seed: int = 0) -> None:
        if clip is not None and not clip > 0:
            raise ValueError(f"clip (QZO's C) must be > 0, or None to switch clipping off; got {clip!r}")
        if not learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {learning_rate!r}")
        self.perturbation = SeededPerturbation(params, eps, decays, floors)
        self.learning_rate, self.clip, self.weight_decay = learning_rate, clip, weight_decay
        self._seeds = np.random.default_rng(seed)

    def step(self, loss: Callable[[], float | torch.Tensor]) -> ZOStep:
        """One two-point step; `loss()` evaluates the current mini-batch at the current parameters."""
        seed = int(self._seeds.integers(SEED_RANGE))
        eps = self.perturbation.eps
        with torch.inference_mode():
            self.perturbation.perturb(seed, +1.0)
            loss_plus = float(loss())
            self.perturbation.perturb(seed, -2.0)
            loss_minus = float(loss())
            self.perturbation.perturb(seed, +1.0)
        grad = (loss_plus - loss_minus) / (2.0 * eps)
        clipped = grad if self.clip is None or math.isnan(grad) else min(max(grad, -self.clip), self.clip)
        self.perturbation.update(seed, self.learning_rate, clipped, self.weight_decay)
        return ZOStep(seed, loss_plus, loss_minus, grad, clipped)
