"""Every modular-LM method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method.

The spec fixes four experts (one per brain network), top-1 routing in stage 3 and at inference and top-2 in
stage 2; everything else here is inferred and named as such: the router's MLP shape, the step counts of the
three stages (equal totals across methods), the learning rate, the source of stage 1's labels (the example's
generated domain) and the steering bias.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness import MethodParams


class FinetuneParams(MethodParams):
    """What every method shares: the fine-tuning budget (steps x batch, equal across methods) on the mixed
    training data after the shared dense pre-training, and the answer token's loss weight."""

    tiny = {"steps": 6, "batch_size": 8, "base_margin": -1.0}
    steps: int = Field(400, ge=1, description="fine-tuning steps (for MiCRo: the three stages together)")
    batch_size: int = Field(32, ge=1)
    learning_rate: float = Field(1e-3, gt=0, description="AdamW, a 5% warm-up then a cosine decay to 10% [inferred]")
    answer_weight: float = Field(3.0, gt=0, description="loss weight of the answer and end tokens [inferred]")
    base_margin: float = Field(0.1, ge=-1, description="before fine-tuning, the base's dev accuracy on every "
                                                        "domain must exceed the domain's majority-answer floor by "
                                                        "this much, or the run stops with an error (-1: no bar, "
                                                        "for the tiny test instance's 20-step base)")


class MixtureParams(FinetuneParams):
    """A mixture of blocks: every decoder block cloned into `experts` copies with a per-layer router MLP."""

    tiny = {"steps": 6, "batch_size": 8, "router_hidden": 8, "base_margin": -1.0}
    experts: int = Field(4, ge=2, le=8, description="clones per block (the spec's four brain networks)")
    router_hidden: int = Field(64, ge=1, description="the router MLP's hidden width (Linear-GELU-Linear) [inferred]")
    steer_bias: float = Field(2.0, gt=0, description="logit added to one expert's router score when steering "
                                                     "[inferred]")


class MiCRoParams(MixtureParams):
    """MiCRo's three stages; `steps` is split by the stage shares (stage 3 takes the rest)."""

    tiny = {"steps": 6, "batch_size": 8, "router_hidden": 8, "base_margin": -1.0}
    experts: int = Field(4, ge=4, le=4, description="one expert per domain (stage 1 routes by the domain label)")
    stage1_share: float = Field(0.2, gt=0, lt=1, description="share of steps of the short warm-up training the "
                                                             "experts, routing fixed by the stage-1 label [inferred]")
    stage2_share: float = Field(0.2, gt=0, lt=1, description="share of steps training only the routers, top-2 "
                                                             "[inferred share; top-2 from the spec's config]")
    router_learning_rate: float = Field(1e-2, gt=0, description="stage 2's learning rate (routers only), chosen "
                                                                "on the main corpus's dev split (micro_tune) "
                                                                "[inferred]")
    stage2_top_k: int = Field(2, ge=1, le=8, description="experts mixed per token in stage 2 (the spec's config)")
    stage1_routing: Literal["label", "clusters"] = Field(
        "label", description="what routes stage 1's tokens: the example's domain label (the paper's labelled "
                             "warm-up) or a k-means cluster of its words (the unsupervised-routing variant)")

    def stage_steps(self) -> tuple[int, int, int]:
        one = max(1, round(self.steps * self.stage1_share))
        two = max(1, round(self.steps * self.stage2_share))
        return one, two, max(1, self.steps - one - two)
