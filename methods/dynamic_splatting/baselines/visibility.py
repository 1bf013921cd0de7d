"""The trivial visibility baseline for USplat4D's calibration claim (issue 61): the base model's motion, rated by
the share of training frames in which its own render does not see the Gaussian (blending mass below
`VISIBLE_MASS`, the family's definition of seen). It fits the base model for `pretrain_steps` exactly as USplat4D
does before estimating its uncertainty and rates those same pretrained positions, so Spearman(u, error) of the
two methods ranks the same errors; then it continues uniformly for `refine_steps` (its positions are the base
model's). Eq. 5 gives an unseen Gaussian phi, so USplat4D's u carries this flag: the uncertainty is worth its
equations only where it ranks the error better than this."""
from __future__ import annotations

from harness import Method, RunContext
from methods.dynamic_splatting.motion import optimise_uniform
from methods.dynamic_splatting.params import MotionParams
from methods.dynamic_splatting.task import MotionEstimate, MotionInputs
from methods.dynamic_splatting.views import VISIBLE_MASS, seen_mass


class VisibilityShare(Method[MotionParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> MotionEstimate:
        p = self.params
        problem = inputs.problem()
        pretrained = optimise_uniform(problem, problem.prior, p.pretrain_steps, p.lr, p.prior_weight)
        unseen = (seen_mass(problem.render(pretrained), pretrained.shape[1]) <= VISIBLE_MASS).double().mean(dim=0)
        positions = optimise_uniform(problem, pretrained, p.refine_steps, p.lr, p.prior_weight)
        return MotionEstimate(positions.numpy(), unseen.numpy(), pretrained.numpy())
