"""Every puzzle solver's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method."""
from __future__ import annotations

from pydantic import Field

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
