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
