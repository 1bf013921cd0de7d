"""Every shape method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from pydantic import Field

from harness import MethodParams


class FlowParams(MethodParams):
    """Sampling the flow generator: Euler steps over the whole path t = 1 -> 0 (a start at t0 takes
    round(t0 * steps))."""

    tiny = {"steps": 10}
    steps: int = Field(50, ge=1, le=1000, description="Euler steps over the full path")


class SpaceControlParams(FlowParams):
    """SpaceControl's single knob: the noise level tau0 the control is noised to before the flow runs."""

    tiny = {"steps": 10, "tau0": 0.5}
    tau0: float = Field(0.5, gt=0.0, le=1.0, description="start time t0 of the flow (1: ignore the control)")


class GuidanceParams(FlowParams):
    """Loss guidance: the scale of the geometric loss's gradient added at every Euler step (0: unconditional)."""

    tiny = {"steps": 10, "strength": 1.0}
    strength: float = Field(1.0, ge=0.0, description="the scale of the geometric-loss gradient at each step")


class NoiseOptimisationParams(FlowParams):
    """D-Flow's noise optimisation: the geometric loss's weight against the noise prior, and the descent."""

    tiny = {"steps": 5, "weight": 10.0, "iterations": 2}
    weight: float = Field(10.0, ge=0.0, description="weight of the geometric loss against the chi prior (0: "
                                                      "unconditional)")
    iterations: int = Field(10, ge=0, le=1000, description="gradient steps on the source noise")
    step_size: float = Field(1.0, gt=0.0, description="the gradient step's size")
