"""Photometric motion optimisation: the positions (T, N, 3) of every Gaussian in every frame, fitted to the
training views by Adam on the L1 photometric error plus a squared deviation from the monocular motion prior.
Optimised uniformly (every Gaussian and frame weighted alike) this is the base model, Shape-of-Motion's role in
the paper; USplat4D refines its result."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from methods.dynamic_splatting.cameras import Camera
from methods.dynamic_splatting.splatter import Render
from methods.dynamic_splatting.views import Appearance


@dataclass(frozen=True)
class MotionProblem:
    """What a method fits: the training views (frame t through `cameras[t]`) and the motion prior."""

    appearance: Appearance
    cameras: list[Camera]
    targets: torch.Tensor  # (T, H, W, 3)
    prior: torch.Tensor    # (T, N, 3)

    def render(self, positions: torch.Tensor) -> Render:
        return self.appearance.render(positions, self.cameras)

    def photometric(self, positions: torch.Tensor) -> torch.Tensor:
        """Mean L1 error of the training views rendered from `positions`."""
        return (self.render(positions).image - self.targets).abs().mean()


def adam(parameters: torch.Tensor, loss: Callable[[torch.Tensor], torch.Tensor], steps: int,
         lr: float) -> torch.Tensor:
    """`parameters` after `steps` Adam steps on `loss`; a copy, detached."""
    current = parameters.detach().clone().requires_grad_(True)
    optimiser = torch.optim.Adam([current], lr=lr)
    for _ in range(steps):
        optimiser.zero_grad()
        loss(current).backward()
        optimiser.step()
    return current.detach()


def optimise_uniform(problem: MotionProblem, start: torch.Tensor, steps: int, lr: float,
                     prior_weight: float) -> torch.Tensor:
    """Every Gaussian's positions fitted alike: photometric L1 + prior_weight * mean squared prior deviation."""
    def loss(positions: torch.Tensor) -> torch.Tensor:
        deviation = ((positions - problem.prior) ** 2).sum(-1).mean()
        return problem.photometric(positions) + prior_weight * deviation

    return adam(start, loss, steps, lr)
