"""Uniform motion optimisation: the base model alone, every Gaussian and frame weighted alike for the whole
budget (`pretrain_steps + refine_steps` Adam steps), the role of Shape-of-Motion / MoSca without USplat4D. It
estimates no uncertainty."""
from __future__ import annotations

from harness import Method, RunContext
from methods.dynamic_splatting.motion import optimise_uniform
from methods.dynamic_splatting.params import MotionParams
from methods.dynamic_splatting.task import MotionEstimate, MotionInputs


class UniformMotion(Method[MotionParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> MotionEstimate:
        p = self.params
        problem = inputs.problem()
        steps = p.pretrain_steps + p.refine_steps
        return MotionEstimate(optimise_uniform(problem, problem.prior, steps, p.lr, p.prior_weight).numpy())
