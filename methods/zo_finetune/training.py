"""The fine-tuning loop every method shares: mini-batches, a step function, dev evaluation, best-on-dev restore.

Both codebases evaluate on dev every `eval_steps` and restore the best checkpoint at the end
(`--load_best_model_at_end`); here the best trainable tensors are kept in memory, and `restore_best` copies
them back as a separate call, so a caller can first score the last step's weights (what a run without the
restore ends with: the DDC ablation's `final_accuracy`). A step whose loss is NaN ends training (the model
has diverged): its index is the ablation's "first NaN step".
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

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
    best_state: list[torch.Tensor] = field(default_factory=list, repr=False)
    interval_losses: dict[int, float] = field(default_factory=dict)
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

    `trainable` are the tensors the method changes; their best-on-dev values are kept on the trace for
    `restore_best`, the model is left at its last step. `grads`, when given, is the list the step function
    appends its projected gradients to.
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
    trace.best_state = best
    trace.interval_losses = interval_losses(trace.losses, steps, eval_steps)
    return trace


def restore_best(trainable: Sequence[torch.Tensor], trace: TrainingTrace) -> None:
    """Copy the best-on-dev values back into `trainable` (`--load_best_model_at_end`) and drop the saved copy."""
    with torch.no_grad():
        for tensor, saved in zip(trainable, trace.best_state, strict=True):
            tensor.copy_(saved)
    trace.best_state = []


def interval_losses(losses: Sequence[float], steps: int, eval_steps: int) -> dict[int, float]:
    """The loss curve at the evaluation steps: mean training loss over each interval, keyed by its last step.

    A run that diverged has NaN from the interval of its first NaN step on (it stopped there), so every run
    of a suite reports the same steps and a late NaN is not hidden by averaging only the runs still alive.
    """
    ends = sorted({*range(eval_steps, steps + 1, eval_steps), steps})
    return {end: float(np.mean(losses[start:end])) if end <= len(losses) else math.nan
            for start, end in pairwise([0, *ends])}


def _evaluate(model, scorer: OptionScorer, dev: EncodedSet, index: int, trace: TrainingTrace,
              trainable: Sequence[torch.Tensor], best: list[torch.Tensor] | None) -> list[torch.Tensor]:
    accuracy = float((scorer.predict(model, dev) == dev.labels).mean())
    trace.dev_accuracy.append((index, accuracy))
    if best is None or accuracy > max(acc for _, acc in trace.dev_accuracy[:-1]):
        trace.best_step = index
        return [tensor.detach().clone() for tensor in trainable]
    return best
