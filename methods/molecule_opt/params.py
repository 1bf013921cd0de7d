"""Every molecule_opt method's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from pydantic import Field

from harness import MethodParams


class MutationParams(MethodParams):
    """Best-of-N random RDKit mutation (baselines.best_of_n)."""

    tiny = {"candidates": 8}
    candidates: int = Field(32, ge=1, le=1024, description="the N of best-of-N: mutants scored per task")
    max_edits: int = Field(2, ge=1, le=8, description="random edits per mutant, drawn from 1 to this")


TINY_BASE = {"base_steps": 10, "base_anchors": 64, "train_tasks": 8}  # seconds, for the conformance tests


class PolicyParams(MethodParams):
    """What every policy method shares: the base policy, the training tasks, and decoding."""

    base_seed: int = Field(0, ge=0, description="seed of the pretrained base policy (cached per recipe)")
    base_steps: int = Field(1200, ge=1, description="pretraining steps of the base policy")
    base_anchors: int = Field(4000, ge=32, description="MOSES neighbour pairs the base policy is pretrained on")
    train_tasks: int = Field(64, ge=8, description="training tasks with references (MOSES-train sources)")
    learning_rate: float = Field(5e-4, gt=0)
    temperature: float = Field(0.7, ge=0, description="of the test answers (0: greedy)")
    curve_every: int = Field(0, ge=0, description="steps between learning-curve points (0: none)")
    curve_tasks: int = Field(100, ge=1, description="validation tasks (held-out MOSES-train sources) of the curves")


class SftParams(PolicyParams):
    """Answer-only SFT on (source, reference) pairs."""

    tiny = {**TINY_BASE, "sft_steps": 2, "batch_size": 4}
    sft_steps: int = Field(40, ge=1)
    batch_size: int = Field(16, ge=1)


class GrpoParams(PolicyParams):
    """GRPO with the RDKit reward and a k3 KL penalty to the policy RL starts from."""

    tiny = {**TINY_BASE, "rl_steps": 2, "batch_tasks": 2, "group": 2}
    rl_steps: int = Field(20, ge=1)
    batch_tasks: int = Field(4, ge=1, description="prompts per update")
    group: int = Field(4, ge=2, description="G: completions sampled per prompt")
    beta: float = Field(0.04, ge=0, description="weight of the KL penalty to the anchor [inferred: TRL's default]")


class SftGrpoParams(SftParams, GrpoParams):
    """SFT, then GRPO from the SFT policy (the KL anchor is the SFT policy, the model RL starts from)."""

    tiny = {**TINY_BASE, "sft_steps": 2, "batch_size": 4, "rl_steps": 2, "batch_tasks": 2, "group": 2}


class DepoParams(GrpoParams):
    """GRPO plus the reference answer's NLL after the policy's own plan."""

    demo_weight: float = Field(1.0, gt=0, description="weight of L_demo (the spec: L = L_GRPO + L_demo)")
