"""MATH-Train: SFT on training questions drawn uniformly, each with its one original answer."""
from __future__ import annotations

import numpy as np

from harness import MethodParams, RunContext
from methods.math_reasoning.stat import subsample
from methods.math_reasoning.training_method import TrainingSetMethod, as_pairs, record_skill_shares
from methods.math_reasoning.training_task import TrainingInputs


class UniformSFT(TrainingSetMethod[MethodParams]):
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        chosen = subsample(inputs.pool, inputs.budget, np.random.default_rng(ctx.seed))
        record_skill_shares(ctx, chosen)
        return as_pairs(chosen)
