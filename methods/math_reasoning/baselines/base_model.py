"""Base: the pre-trained student without further training (STAT's first row)."""
from __future__ import annotations

from methods.math_reasoning.training_method import TrainingSetMethod


class BaseModel(TrainingSetMethod):
    trains = False
