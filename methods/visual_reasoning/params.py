"""Every puzzle solver's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from harness import MethodParams


class SamplingParams(MethodParams):
    """How many answers a solver gives per puzzle: the N of pass@k and best-of-k."""

    tiny = {"samples": 4}
    samples: int = Field(16, ge=1, le=64, description="answers per puzzle")


class CnnParams(SamplingParams):
    """The small CNN (methods.visual_reasoning.baselines.cnn): trained per run on CPU on generated training
    puzzles of the run's task and difficulty; its first answer is the most likely one, the others are drawn."""

    version = "2"  # 2: maze maps enter at 4 pixels per cell
    tiny = {"samples": 4, "train_puzzles": 24, "epochs": 2}
    train_puzzles: int = Field(300, ge=8, description="generated training puzzles (a separate stream)")
    epochs: int = Field(12, ge=1)
    lr: float = Field(3e-3, gt=0)
    width: int = Field(32, ge=4, description="channels of the last convolution")
    temperature: float = Field(1.0, gt=0, description="of the softmax the answers after the first are drawn from")


class ReasonerParams(SamplingParams):
    """The miniature interleaved reasoner (methods.visual_reasoning.baselines.reasoner, issue 56): a small
    transformers Llama over picture patches and a closed vocabulary, trained per run on CPU from scratch on the
    traces of generated training puzzles; every variant gets the same puzzles, size, optimiser and steps."""

    version = "2"  # 2: traces for all four tasks (the jigsaw cursor, the search zoom's border), train_on
    tiny = {"samples": 2, "train_puzzles": 8, "steps": 2, "width": 16, "layers": 1, "heads": 2}
    train_puzzles: int = Field(300, ge=1, description="generated training puzzles per level (a separate stream)")
    train_on: Literal["level", "task"] = Field(
        "level", description="train on the run's level, or on every level of its task (one model per task, variant "
                             "and seed, cached and shared by the runs of its levels, as ThinkMorph trains one model)")
    steps: int = Field(800, ge=1, description="AdamW steps")
    batch: int = Field(32, ge=1, description="sequences per step")
    lr: float = Field(1e-3, gt=0, description="AdamW's learning rate (3e-3 left the prototype at chance)")
    width: int = Field(64, ge=4, description="hidden size; the MLP is twice as wide")
    layers: int = Field(2, ge=1)
    heads: int = Field(4, ge=1, description="attention heads; must divide width")
    temperature: float = Field(1.0, gt=0, description="of the softmax the answers after the first are drawn from")

    @model_validator(mode="after")
    def _heads_divide_width(self) -> ReasonerParams:
        if self.width % self.heads:
            raise ValueError(f"heads ({self.heads}) must divide width ({self.width})")
        return self
