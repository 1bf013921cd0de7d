"""Every sparse-attention method's parameters: types, ranges and defaults (the papers' and their code's).

Torch-free, so `harness validate` and `harness plan` check a suite without importing a method.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from harness import MethodParams

Coverage = Field(0.95, gt=0, le=1, description="share of the attention mass the kept blocks must cover")


class OracleParams(MethodParams):
    gamma: float = Coverage


class ProxyAttnParams(MethodParams):
    """The spec's inferred points (proxyattn.py), each with the spec's default."""

    tiny = {"min_budget": 64}  # sparse from 64 tokens, so a tiny instance is not all dense fallback

    gamma: float = Coverage
    stride: int = Field(4, ge=1, description="a power of two: every stride-th token enters the proxy scores")
    groups: int = Field(1, ge=1, description="proxy heads; must divide the KV heads")
    min_budget: int = Field(2048, ge=0, description="tokens below which prefill stays dense")
    budget: Literal["dynamic", "static"] = "dynamic"
    row_budget_rule: Literal["literal", "proportional"] = "literal"
    tile_reduce: Literal["max", "max_mean"] = "max"
    force_sink_diag: bool = True

    @field_validator("stride")
    @classmethod
    def _power_of_two(cls, stride: int) -> int:
        if stride & (stride - 1):
            raise ValueError(f"stride must be a power of two, got {stride}")
        return stride


class FlexPrefillParams(MethodParams):
    """FlexPrefill's reference defaults (gamma 0.95, tau 0.1, min_budget 1024 tokens, no max_budget)."""

    tiny = {"min_budget": 64}

    gamma: float = Coverage
    tau: float = Field(0.1, ge=0, le=1, description="sqrt-JS threshold below which a head is query-aware")
    min_budget: int = Field(1024, ge=0)
    max_budget: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _budgets_ordered(self) -> "FlexPrefillParams":
        if self.max_budget is not None and self.max_budget < self.min_budget:
            raise ValueError(f"max_budget must be None or >= min_budget = {self.min_budget} (tokens), "
                             f"got {self.max_budget}")
        return self


class XAttentionParams(MethodParams):
    stride: int = Field(8, ge=1, description="tokens per antidiagonal tile side")
    threshold: float = Field(0.9, gt=0, le=1, description="share of each row's block score to keep")


class MInferenceParams(MethodParams):
    tiny = {"vertical_size": 64, "slash_size": 64}
    vertical_size: int = Field(1000, ge=0, description="tokens")
    slash_size: int = Field(6096, ge=0, description="tokens")


class FixedDensityParams(MethodParams):
    density: float = Field(0.3, gt=0, le=1)
