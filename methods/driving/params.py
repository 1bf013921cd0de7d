"""The reference planners' parameters (torch-free and devkit-free: `harness validate` reads them)."""
from __future__ import annotations

from pydantic import Field

from harness import MethodParams


class CommandLagParams(MethodParams):
    lag: int = Field(2, ge=0, description="keyframes of delay after each command change")


class LateralNoiseParams(MethodParams):
    sigma: float = Field(0.5, ge=0, description="standard deviation of the lateral noise, metres")


class LeadColliderParams(MethodParams):
    speedup: float = Field(1.5, gt=0, description="factor on the logged speed along the logged path")
