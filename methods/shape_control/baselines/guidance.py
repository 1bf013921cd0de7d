"""Loss guidance: unconditional flow sampling steered at every Euler step by the gradient of the geometric loss
toward the control, evaluated on the step's estimate of the clean latent (the guidance family the paper
compares with; the form of diffusion posterior sampling, Chung et al., ICLR 2023, and of universal guidance,
Bansal et al., 2023, written for a rectified flow).

At time t the flow's clean estimate is z0_hat = z_t - t v(z_t, t) (rectified flow: z_t = (1 - t) z0 + t eps and
v = eps - z0); each step is z <- z - dt v(z_t, t) - strength * grad_{z_t} L(D(z0_hat), control), with L the
voxel BCE of `geometric_loss` and the gradient taken through the velocity network. strength = 0 is unconditional
sampling from the same noise. Unlike DPS we do not divide the step by the loss's norm: the gradient of a mean BCE
already shrinks as the shape fits, and a plain scale makes strength one knob (as classifier guidance's scale).
The strength grid in the suites was chosen on validation controls (furniture.VALIDATION_STREAM), never the test
controls, to span SpaceControl's realism range.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from harness import Method, RunContext
from methods.shape_control.data import load_flow
from methods.shape_control.params import GuidanceParams
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


def guided_samples(model: Any, controls: np.ndarray, strength: float, steps: int,
                   rng: np.random.Generator) -> np.ndarray:
    """(N, R, R, R) bool: one guided sample per control grid, from `flow.source_noise` over `steps` Euler steps."""
    import torch

    from methods.shape_control.flow import euler_times, source_noise
    from methods.shape_control.geometric_loss import control_targets, occupancy_loss

    targets = control_targets(controls)
    z = source_noise(model, len(controls), rng)
    times = euler_times(1.0, steps)
    for now, after in zip(times[:-1], times[1:], strict=True):
        z = z.detach().requires_grad_(strength > 0)
        with torch.set_grad_enabled(strength > 0):
            velocity = model(z, torch.full((len(z),), float(now)))
            step = z - float(now - after) * velocity
            if strength > 0:
                clean = z - float(now) * velocity
                (gradient,) = torch.autograd.grad(occupancy_loss(model, clean, targets).sum(), z)
                step = step - strength * gradient
        z = step.detach()
    with torch.no_grad():
        return model.decode(z).numpy()


class LossGuidance(Method[GuidanceParams]):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        model = load_flow(inputs.flow_dir)
        grids = guided_samples(model, inputs.control_grids(), self.params.strength, self.params.steps,
                               np.random.default_rng(ctx.seed))
        return {control.id: GeneratedShape(grid=grid) for control, grid in zip(inputs.controls, grids, strict=True)}
