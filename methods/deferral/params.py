"""Every deferral method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from harness import MethodParams


class ScorerParams(MethodParams):
    """The learned scorer and its surrogate (methods.deferral.scorer); `cost_scale` multiplies every beta_j
    in the training costs, which traces a method's accuracy-cost curve over a sweep of beta (T-L2D-2)."""

    version: ClassVar[str] = "2"  # majority vote with reliability ties, a selector part, the beta-sweep curves
    tiny = {"epochs": 20}
    hidden: int = Field(0, ge=0, description="hidden width of the scorer's MLP; 0: linear (logistic regression)")
    epochs: int = Field(300, ge=1)
    lr: float = Field(0.01, gt=0)
    weight_decay: float = Field(1e-4, ge=0)
    surrogate: Literal["log_softmax", "gce", "mae"] = "log_softmax"
    q: float = Field(0.7, gt=0, le=1, description="generalised cross-entropy's exponent")
    cost_scale: float = Field(1.0, ge=0)


class TopKParams(ScorerParams):
    k: int = Field(2, ge=1, description="entities consulted per query")


class TopKxParams(ScorerParams):
    max_k: int | None = Field(None, ge=1, description="largest k the selector may choose (None: every entity)")


class CascadeParams(MethodParams):
    defer_rate: float = Field(0.5, gt=0, lt=1, description="share of queries sent past each stage (validation)")


class SelectiveParams(MethodParams):
    coverage: float = Field(0.7, gt=0, le=1, description="share of queries the model keeps (validation quantile)")


class RandomKParams(MethodParams):
    k: int = Field(2, ge=1)


class BestSingleParams(MethodParams):
    cost_scale: float = Field(1.0, ge=0, description="weight of beta_j in the validation cost that picks the entity")


class OracleParams(MethodParams):
    version: ClassVar[str] = "2"
    k: int | None = Field(None, ge=1, description="the Bayes top-k by expected cost; None: the best set of any "
                                                   "size under the task's vote (set_costs)")
