"""What the trained methods share: the sessions they may train on, the Adam loop and the learning curve it
records, and the run of a method that trains one network and then predicts each column it answers."""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from harness import DataError, Method, RunContext
from harness.model_cache import training_threads
from methods.neural_encoding.columns import BY_NAME, Column
from methods.neural_encoding.params import TrainingParams
from methods.neural_encoding.problem import EncodingInputs, Predictions, TestView, TrainSession

LOSS_WINDOW = 20


def check_train_sessions(inputs: EncodingInputs, count: int | None) -> tuple[TrainSession, ...]:
    """The first `count` training sessions (all by default); the evaluated sessions must be among them."""
    if not inputs.train:
        raise DataError("this dataset has no training trials: a recorded test split (the traces loader) scores "
                        "your model's predictions file", field="method",
                        hint='Give the method as `mine: {predictions: "preds/{method}/{dataset}/{seed}.parquet"}`.')
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


def fit(network: Any, steps: int, lr: float, batch_loss: Callable[[], Any], ctx: RunContext) -> None:
    """`steps` Adam steps on `batch_loss()` (each call draws a batch), the loss recorded as `train_loss`."""
    import torch

    optimiser = torch.optim.Adam(network.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = batch_loss()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(float(loss.detach()))
    ctx.record_curve("train_loss", *loss_windows(losses), higher_is_better=False)


P = TypeVar("P", bound=TrainingParams)


class TrainedEncoder(Method[P]):
    """A method that trains one network on the training sessions, then answers the columns it can."""

    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        import torch

        with training_threads(ctx.threads):
            network = self.trained(check_train_sessions(inputs, self.params.train_sessions), ctx)
            with torch.no_grad():
                return {name: [self.predict(network, index, view, BY_NAME[name]) for index, view in enumerate(views)]
                        for name, views in inputs.test.items() if self.answers(BY_NAME[name])}

    @abstractmethod
    def answers(self, column: Column) -> bool:
        """Whether the method predicts `column`."""

    @abstractmethod
    def trained(self, sessions: tuple[TrainSession, ...], ctx: RunContext) -> Any:
        """The network trained on `sessions`, in eval mode."""

    @abstractmethod
    def predict(self, network: Any, session: int, view: TestView, column: Column) -> np.ndarray:
        """(trials, target times, target units) for one evaluated session."""
