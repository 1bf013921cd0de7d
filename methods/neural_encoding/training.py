"""What the trained methods share: the sessions they may train on, and the learning curve they record."""
from __future__ import annotations

import numpy as np

from harness import DataError
from methods.neural_encoding.problem import EncodingInputs, TrainSession

LOSS_WINDOW = 20


def check_train_sessions(inputs: EncodingInputs, count: int | None) -> tuple[TrainSession, ...]:
    """The first `count` training sessions (all by default); the evaluated sessions must be among them."""
    if not inputs.train:
        raise DataError("this dataset has no training trials (recorded traces are scored with `recorded` alone)",
                        field="method")
    evaluated = max((len(views) for views in inputs.test.values()), default=0)
    count = len(inputs.train) if count is None else count
    if not evaluated <= count <= len(inputs.train):
        raise DataError(f"train_sessions {count} must lie between the {evaluated} evaluated sessions and the "
                        f"{len(inputs.train)} simulated", field="train_sessions")
    return inputs.train[:count]


def loss_windows(losses: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """(steps, mean loss) over windows of LOSS_WINDOW steps: a curve of tens of points, not one per step."""
    values = np.asarray(losses)
    starts = np.arange(0, values.size, LOSS_WINDOW)
    return starts + LOSS_WINDOW, np.array([values[s: s + LOSS_WINDOW].mean() for s in starts])
