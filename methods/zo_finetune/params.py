"""Every fine-tuning method's parameters: types, ranges and defaults (QZO's and MeZO's papers, the spec's).

Torch-free, so `harness validate` and `harness plan` check a suite without importing a method.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from harness import MethodParams

Bits = Literal[2, 4, 8]
PositiveRate = Annotated[float, Field(gt=0)]
# One rate, or a list tuned on dev (a suite writes a list value as a list of lists: [[1.0e-4, 3.0e-4]]).
LearningRate = PositiveRate | Annotated[tuple[PositiveRate, ...], Field(strict=False, min_length=1)]
GroupSize = Annotated[int, Field(ge=1)] | None  # None: one group per row


class TrainingParams(MethodParams):
    """What every trained method shares: its learning rate(s), steps, batch and dev-evaluation interval."""

    tiny = {"learning_rate": 1e-4, "steps": 4, "eval_steps": 2, "batch_size": 4}
    learning_rate: LearningRate
    steps: int = Field(1000, ge=1)
    batch_size: int = Field(16, ge=1)
    eval_steps: int = Field(100, ge=1)

    @property
    def learning_rates(self) -> list[float]:
        """The grid the method tunes on dev: one rate, or each of a list."""
        return [self.learning_rate] if isinstance(self.learning_rate, float) else list(self.learning_rate)


class QZOParams(TrainingParams):
    """QZO (Shang et al., ICLR 2026): eps 1e-3, clipping C = 100, 4-bit GPTQ-format scales in fp16."""

    learning_rate: LearningRate = 1e-7
    eps: float = Field(1e-3, gt=0)
    clip: float | None = Field(100.0, gt=0, description="C of the clipped directional derivative; null: no clipping")
    bits: Bits = 4
    group_size: GroupSize = 128
    scales_dtype: Literal["float16", "float32", "bfloat16"] = "float16"
    floor: float = 1e-7
    train_unquantized: bool = False


class MeZOParams(TrainingParams):
    """MeZO (Malladi et al., NeurIPS 2023): eps 1e-3."""

    learning_rate: LearningRate = 1e-6
    eps: float = Field(1e-3, gt=0)
    weight_decay: float = 0.0


class FineTuneParams(TrainingParams):
    learning_rate: LearningRate = 8e-4
    optimizer: Literal["sgd", "adamw"] = "sgd"
    batch_size: int = Field(8, ge=1)
    weight_decay: float = 0.0


class QuantizationParams(MethodParams):
    """Whether and how the base model is quantized (round-to-nearest, GPTQ format)."""

    quantized: bool = False
    bits: Bits = 4
    group_size: GroupSize = 128


class LoRAParams(TrainingParams, QuantizationParams):
    """peft's LoRA at the spec's rank 8, alpha 16 on q_proj/v_proj; `quantized: true` is QLoRA."""

    learning_rate: LearningRate = 1e-4
    rank: int = Field(8, ge=1)
    alpha: int = 16
    target_modules: Annotated[tuple[str, ...], Field(strict=False, min_length=1)] = ("q_proj", "v_proj")
