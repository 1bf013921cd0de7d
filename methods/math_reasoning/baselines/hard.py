"""MATH-Hard: only the hardest training questions (the paper: levels 4-5; here the longest chains, `level` =
number of steps at its maximum), with 3 rewritten answers each, subsampled to the budget."""
from __future__ import annotations

import numpy as np

from harness import MethodParams, RunContext
from methods.math_reasoning.stat import subsample, with_rewrites
from methods.math_reasoning.training_method import TrainingSetMethod, as_pairs, record_skill_shares
from methods.math_reasoning.training_task import TrainingInputs


class Hard(TrainingSetMethod[MethodParams]):
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        top = max(p.level or 0 for p in inputs.pool)
        hardest = [p for p in inputs.pool if (p.level or 0) == top]
        chosen = subsample(with_rewrites(hardest), inputs.budget, np.random.default_rng(ctx.seed))
        record_skill_shares(ctx, chosen)
        return as_pairs(chosen)
