"""The fine-tuning loop every method shares: mini-batches, a step function, dev evaluation, best-on-dev restore.

Both codebases evaluate on dev every `eval_steps` and restore the best checkpoint at the end
(`--load_best_model_at_end`); here the best trainable tensors are kept in memory. A step whose loss is NaN
ends training (the model has diverged): its index is the ablation's "first NaN step".
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from methods.zo_finetune.objective import EncodedSet, OptionScorer


@dataclass
class TrainingTrace:
    """Per-step training loss and (zeroth-order methods) projected gradient, dev accuracy at each evaluation."""

    losses: list[float] = field(default_factory=list)
    projected_grads: list[float] = field(default_factory=list)
    dev_accuracy: list[tuple[int, float]] = field(default_factory=list)
    first_nan_step: int | None = None
    best_step: int = 0
    train_s: float = 0.0

    @property
    def steps(self) -> int:
        return len(self.losses)

    @property
    def best_dev_accuracy(self) -> float:
        return max((acc for _, acc in self.dev_accuracy), default=float("nan"))


def finetune(model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, dev: EncodedSet,
             step: Callable[[Sequence[int]], float], trainable: Sequence[torch.Tensor], steps: int, batch_size: int,
             eval_steps: int, seed: int, grads: list[float] | None = None) -> TrainingTrace:
    """Run `steps` calls of `step(batch_indices) -> loss`, evaluating on dev every `eval_steps` (and at 0).

    `trainable` are the tensors the method changes; the best-on-dev values are copied back at the end.
    `grads`, when given, is the list the step function appends its projected gradients to.
    """
    trace = TrainingTrace(projected_grads=grads if grads is not None else [])
    rng = np.random.default_rng(seed)
    model.eval()  # MeZO and QZO perturb in eval mode; the tiny models have no dropout, so FT matches
    best = _evaluate(model, scorer, dev, 0, trace, trainable, None)
    started, evaluating_s = time.perf_counter(), 0.0
    for index in range(1, steps + 1):
        batch = rng.choice(len(train), size=min(batch_size, len(train)), replace=False).tolist()
        loss = step(batch)
        trace.losses.append(loss)
        if math.isnan(loss):
            trace.first_nan_step = index
            break
        if index % eval_steps == 0 or index == steps:
            evaluation_started = time.perf_counter()
            best = _evaluate(model, scorer, dev, index, trace, trainable, best)
            evaluating_s += time.perf_counter() - evaluation_started
    trace.train_s = time.perf_counter() - started - evaluating_s
    with torch.no_grad():
        for tensor, saved in zip(trainable, best, strict=True):
            tensor.copy_(saved)
    return trace


def _evaluate(model, scorer: OptionScorer, dev: EncodedSet, index: int, trace: TrainingTrace,
              trainable: Sequence[torch.Tensor], best: list[torch.Tensor] | None) -> list[torch.Tensor]:
    accuracy = float((scorer.predict(model, dev) == dev.labels).mean())
    trace.dev_accuracy.append((index, accuracy))
    if best is None or accuracy > max(acc for _, acc in trace.dev_accuracy[:-1]):
        trace.best_step = index
        return [tensor.detach().clone() for tensor in trainable]
    return best
