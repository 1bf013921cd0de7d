"""MATH-Augment: training questions each with 3 rewritten answers (the paper: TIGER-Lab's MATH-plus rewrites;
here the generator's three step styles), subsampled to the budget."""
from __future__ import annotations

import numpy as np

from harness import MethodParams, RunContext
from methods.math_reasoning.stat import subsample, with_rewrites
from methods.math_reasoning.training_method import TrainingSetMethod, as_pairs, record_skill_shares
from methods.math_reasoning.training_task import TrainingInputs


class Augment(TrainingSetMethod[MethodParams]):
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        rng = np.random.default_rng(ctx.seed)
        questions = subsample(inputs.pool, -(-inputs.budget // 3), rng)
        chosen = subsample(with_rewrites(questions), inputs.budget, rng)
        record_skill_shares(ctx, chosen)
        return as_pairs(chosen)
