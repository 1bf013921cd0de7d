"""Every method's parameters: the representation and where it goes, the plasticity baseline, and the few
algorithm settings a small budget needs (the rest are stable-baselines3's defaults). Torch-free, so
`harness validate` and `harness plan` check a suite without importing a method."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness import MethodParams


class RepresentationParams(MethodParams):
    """SEM (L groups of V, temperature tau, per the released code) or a rebuttal-set regulariser in its place."""

    representation: Literal["none", "sem", "layernorm", "dropout", "spectral_norm"] = "none"
    groups: int = Field(8, ge=1, description="SEM's L (and the LayerNorm baseline's width is L x V)")
    group_size: int = Field(64, ge=2, description="SEM's V")
    temperature: float = Field(1.0, gt=0, description="SEM's softmax temperature tau")
    dropout: float = Field(0.1, ge=0, lt=1, description="the dropout baseline's rate")


class AgentParams(RepresentationParams):
    placement: Literal["actor", "critic", "both"] = "both"
    plasticity: Literal["none", "reset", "shrink_perturb"] = Field(
        "none", description="periodic reset of the output layers, or shrink-and-perturb of every layer")
    plasticity_every: int = Field(10_000, ge=1, description="environment steps between resets / shrinks")
    shrink: float = Field(0.8, gt=0, lt=1, description="shrink-and-perturb's alpha")
    learning_rate: float = Field(3e-4, gt=0)


class PPOParams(AgentParams):
    tiny = {"n_steps": 64, "batch_size": 32, "n_epochs": 2}
    n_steps: int = Field(2048, ge=8, description="rollout length per update (SB3's default)")
    batch_size: int = Field(64, ge=2)
    n_epochs: int = Field(10, ge=1)
    ent_coef: float = Field(0.0, ge=0)


class OffPolicyParams(AgentParams):
    tiny = {"learning_starts": 32, "batch_size": 32}
    learning_starts: int = Field(1_000, ge=1, description="random steps before the first update")
    batch_size: int = Field(256, ge=2)
    buffer_size: int = Field(100_000, ge=100)


class TD3Params(OffPolicyParams):
    learning_rate: float = Field(1e-3, gt=0, description="SB3's TD3 default")


class ClassifierParams(RepresentationParams):
    tiny = {"hidden": 32}
    hidden: int = Field(256, ge=2, description="width of the first hidden layer (the second is replaced by SEM)")
    learning_rate: float = Field(1e-3, gt=0)
    batch_size: int = Field(64, ge=1)
