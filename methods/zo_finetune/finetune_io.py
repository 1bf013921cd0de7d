"""What a fine-tuning run takes (`FineTuneInputs`) and returns (`FineTuneOutput`), and the tensor-byte accounting
the accuracy and memory tasks share: below the methods and the tasks, which all read them."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from methods.zo_finetune.prompts import PromptExample
from methods.zo_finetune.training import TrainingTrace


@dataclass(frozen=True)
class FineTuneInputs:
    """One task's train/dev/test examples and the folder of the model to adapt."""

    task: str
    model_dir: Path
    train: Sequence[PromptExample]
    dev: Sequence[PromptExample]
    test: Sequence[PromptExample]
    dtype: str = "float32"


@dataclass
class FineTuneOutput:
    """Test predictions (option indices) of the chosen learning rate, with its trace and memory accounting.

    `final_accuracy` is the test accuracy (%) of that rate's last-step weights, before the best-on-dev restore.
    """

    predictions: np.ndarray
    learning_rate: float | None = None
    final_accuracy: float | None = None
    trace: TrainingTrace | None = None
    trainable_params: int = 0
    tensor_bytes: dict[str, int] = field(default_factory=dict)


def tensor_bytes(model: torch.nn.Module, optimizer: Any = None) -> dict[str, int]:
    """Bytes of the model's parameters and buffers, of the gradients held, and of the optimizer's states."""
    weights = sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    states = 0
    if isinstance(optimizer, torch.optim.Optimizer):
        states = sum(v.numel() * v.element_size() for s in optimizer.state.values() for v in s.values()
                     if torch.is_tensor(v) and v.dim() > 0)
    return {"weights": weights, "gradients": grads, "optimizer_states": states}
