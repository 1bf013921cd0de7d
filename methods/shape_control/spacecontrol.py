"""SpaceControl (Fedele et al., "SpaceControl: Introducing Test-Time Spatial Control to 3D Generative Modeling",
arXiv 2512.05343): training-free control by starting the structure flow from the encoded control geometry noised
to t0 = tau0 (SDEdit-style) instead of from pure noise. The noising form z_t0 = (1 - t0) z_c + t0 eps is the
spec's inference (rectified flow's path); the paper's TRELLIS, its text/image condition and its appearance stage
are not reproduced: the flow here is the family's tiny unconditional latent flow (`flow.py`)."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.shape_control.data import load_flow
from methods.shape_control.params import SpaceControlParams
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


def flow_samples(inputs: ControlInputs, t0: float, steps: int, seed: int) -> Generated:
    """One flow sample per control started at t0 (1: from pure noise) by the seed's flow, seeded by the run's
    seed."""
    from methods.shape_control.flow import sdedit

    model = load_flow(inputs.flow_dir)
    grids = sdedit(model, inputs.control_grids(), t0, steps, np.random.default_rng(seed))
    return {control.id: GeneratedShape(grid=grid) for control, grid in zip(inputs.controls, grids, strict=True)}


class SpaceControl(Method[SpaceControlParams]):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        return flow_samples(inputs, self.params.tau0, self.params.steps, ctx.seed)
