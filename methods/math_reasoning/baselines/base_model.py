"""Base: the pre-trained student without further training (STAT's first row)."""
from __future__ import annotations

from harness import MethodParams, RunContext
from methods.math_reasoning.training_method import TrainingSetMethod
from methods.math_reasoning.training_task import TrainingInputs


class BaseModel(TrainingSetMethod[MethodParams]):
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> None:
        """No training set: the student is evaluated as pre-training left it."""
        return None
