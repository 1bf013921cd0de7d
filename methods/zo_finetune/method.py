"""What every fine-tuning method shares: load the model, adapt it at each learning rate, keep the best on dev.

A method subclass says how the model is prepared (`prepare`: quantize it, add adapters), which tensors it
trains (`trainable`) and what one step does (`make_step`). The learning rate is tuned per method on the dev
split only (the spec's fairness rule): each rate in the grid trains from the same start, and the rate whose
best dev accuracy is highest is the one whose test predictions are returned. Steps are matched across
methods by the suite. The chosen rate's last-step weights are scored too, before the best-on-dev restore:
the restore hides a run that degrades or diverges (it returns step 0), which is what the DDC ablation
measures.
"""
from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np
import torch

from harness import Method, MethodParams
from harness.context import RunContext
from methods.zo_finetune.objective import EncodedSet, OptionScorer
from methods.zo_finetune.params import TrainingParams
from methods.zo_finetune.tiny_model import load
from methods.zo_finetune.finetune_io import FineTuneInputs, FineTuneOutput, tensor_bytes
from methods.zo_finetune.training import finetune, restore_best
from methods.zo_finetune.zo import ZerothOrderOptimizer


@dataclass
class Adaptation:
    """A method's model ready to train: its trainable tensors, one step, and the optimizer (for its state bytes)."""

    trainable: list[torch.Tensor]
    step: Callable[[Sequence[int]], float]
    optimizer: Any = None
    grads: list[float] = field(default_factory=list)


def zeroth_order(optimizer: ZerothOrderOptimizer, model: torch.nn.Module, scorer: OptionScorer,
                 train: EncodedSet) -> Adaptation:
    """The adaptation of a two-point zeroth-order method: each step logs d and returns L+."""
    grads: list[float] = []

    def step(batch: Sequence[int]) -> float:
        result = optimizer.step(lambda: scorer.loss(model, train, batch))
        grads.append(result.projected_grad)
        return result.loss_plus

    return Adaptation(optimizer.perturbation.params, step, None, grads)


P = TypeVar("P", bound=MethodParams)


class FineTuningMethod(Method[P]):
    """Base of QZO, MeZO, FT, LoRA, QLoRA and the zero-shot rows; subclasses define the three hooks below."""

    trains: ClassVar[bool] = True  # False: `params_model` has no training parameters, and `adapt` is never called

    @abstractmethod
    def prepare(self, model: torch.nn.Module) -> torch.nn.Module:
        """The model as this method trains and evaluates it (quantized, with adapters, ...)."""

    def adapt(self, model: torch.nn.Module, scorer: OptionScorer, train: EncodedSet, learning_rate: float,
              seed: int) -> Adaptation:
        """The trainable tensors and one training step at `learning_rate`."""
        raise NotImplementedError(f"{type(self).__name__} does not train")

    @property
    @abstractmethod
    def memory_method(self) -> str:
        """The method's name in `memory.memory_breakdown`'s accounting."""

    def run(self, inputs: Any, ctx: RunContext) -> Any:
        if not isinstance(inputs, FineTuneInputs):  # the memory task's MemoryInputs
            from methods.zo_finetune.memory_task import measure

            return measure(self, inputs, ctx)
        base, tokenizer = load(inputs.model_dir, inputs.dtype)
        scorer = OptionScorer(tokenizer)
        train, dev, test = (scorer.encode(s) for s in (inputs.train, inputs.dev, inputs.test))
        if not self.trains:
            model = self.prepare(base)
            predictions = scorer.predict(model, test)
            return record(ctx, FineTuneOutput(predictions, final_accuracy=percent_correct(predictions, test),
                                              tensor_bytes=tensor_bytes(model)))
        p = self.params
        if not isinstance(p, TrainingParams):
            raise TypeError(f"{type(self).__name__} trains, so its parameters must derive from TrainingParams")
        best: tuple[float, FineTuneOutput] | None = None
        for rate in p.learning_rates:
            torch.manual_seed(ctx.seed)
            model = self.prepare(copy.deepcopy(base))
            adaptation = self.adapt(model, scorer, train, rate, ctx.seed)
            trace = finetune(model, scorer, train, dev, adaptation.step, adaptation.trainable, p.steps,
                             p.batch_size, p.eval_steps, ctx.seed, adaptation.grads)
            ctx.log.info("%s lr=%g: best dev accuracy %.3f at step %d", type(self).__name__, rate,
                         trace.best_dev_accuracy, trace.best_step)
            if best is None or trace.best_dev_accuracy > best[0]:
                final_accuracy = percent_correct(scorer.predict(model, test), test)
                restore_best(adaptation.trainable, trace)
                output = FineTuneOutput(scorer.predict(model, test), rate, final_accuracy, trace,
                                        sum(t.numel() for t in adaptation.trainable),
                                        tensor_bytes(model, adaptation.optimizer))
                best = (trace.best_dev_accuracy, output)
        if best is None:
            raise ValueError("no learning rate to train with")
        return record(ctx, best[1])


def percent_correct(predictions: np.ndarray, test: EncodedSet) -> float:
    """Accuracy in % (the `accuracy` metric's scale), for the figures a method records beside its predictions."""
    return 100.0 * float(np.mean(predictions == test.labels))


def record(ctx: RunContext, output: FineTuneOutput) -> FineTuneOutput:
    """Store the run's training figures with it: the chosen rate, divergence, step time, tensor memory."""
    for kind, size in output.tensor_bytes.items():
        ctx.record(f"{kind}_mb", size / 2**20, "MB", higher_is_better=False)
    if output.final_accuracy is not None:  # a zero-shot row's weights are its final ones
        ctx.record("final_accuracy", output.final_accuracy, "%", higher_is_better=True)
    trace = output.trace
    if trace is None or output.learning_rate is None:  # a zero-shot row: nothing trained
        return output
    ctx.record("trainable_params", output.trainable_params)
    ctx.record("learning_rate", output.learning_rate)
    ctx.record("steps_run", trace.steps)
    ctx.record("diverged", float(trace.first_nan_step is not None), higher_is_better=False)
    if trace.first_nan_step is not None:  # the step the paper's Fig. 2 names; absent when the run never diverges
        ctx.record("first_nan_step", trace.first_nan_step, "step")
    # Every run has this one, so a run that never diverges ranks above one that does.
    ctx.record("finite_steps", trace.steps - (trace.first_nan_step is not None), "step", higher_is_better=True)
    ctx.record("best_dev_accuracy", trace.best_dev_accuracy, higher_is_better=True)
    ctx.record("best_step", trace.best_step, "step")  # the step the restore returns; 0 is the untrained model
    ctx.record("final_train_loss", float(np.mean(trace.losses[-20:])), higher_is_better=False)
    for end, loss in trace.interval_losses.items():  # the loss curve; NaN from a diverged run's last interval on
        ctx.record(f"train_loss_at_{end}", loss, higher_is_better=False)
    ctx.record("step_ms", 1000.0 * trace.train_s / max(trace.steps, 1), "ms", higher_is_better=False)
    return output

