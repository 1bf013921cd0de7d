"""What every initialiser shares: load the source, build the student (seeded), let the method initialise it,
measure the spectral distance of its FFNs to their source layers, train it for the fixed budget while the dev
loss and the dev accuracy's share of the source's (above the floor: `dev_share`) are recorded, then answer the
test prompts (as the source does too) and measure perplexity and CKA against the source.

Share of the source's performance is measured on what the source can do: the task types on whose dev questions
the run's source leads the majority floor by the dataset's `gate` (chosen on dev, from the source alone, the same
for every initialiser of that source; recorded as `scored:<type>` figures, which the task's scoring reads). A
source that learned none is scored on every task type."""
from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import torch

from harness import Method, RunContext
from methods.model_init.genes import ffn_of
from methods.model_init.measures import (learned_tasks, linear_cka, majority_floor, share_above_floor,
                                         spectral_distance)
from methods.model_init.models import build_model, parameters
from methods.model_init.params import InitParams
from methods.model_init.task import SCORED, InitInputs, InitResult
from methods.model_init.text import encode_batch
from methods.model_init.training import StepLoss, hidden_states, mean_loss, next_words, token_loss
from methods.common.corpus_training import train_steps
from methods.common.tiny_llama import load
from methods.common.vocab import PAD

CKA_PROMPTS = 256  # the first test prompts, whose tokens' states CKA compares
Origins = Sequence[Sequence[int]]  # per student layer, the source layers its FFN stands for


P = TypeVar("P", bound=InitParams)


class Initialiser(Method[P]):
    @abstractmethod
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        """Write the student's initial weights (it starts random, seeded); return each layer's source layers."""

    def step_loss(self, source: Any) -> StepLoss:
        """The training loss (KD mixes in the source's predictions)."""
        return token_loss

    def run(self, inputs: InitInputs, ctx: RunContext) -> InitResult:
        source, tokenizer = load(inputs.source_dir())
        torch.manual_seed(ctx.seed)
        student = build_model(inputs.student, len(tokenizer))
        origins = self.initialise(student, source, inputs, ctx)
        p = self.params
        dev = inputs.corpus.dev[:inputs.eval_lines]
        steps: list[float] = []
        losses: list[float] = []
        probe, truth, tasks = inputs.corpus.probe()
        theirs_dev = next_words(source, tokenizer, probe)
        learned = learned_tasks(theirs_dev, truth, tasks, inputs.gate)
        keep = [i for i, task in enumerate(tasks) if task in learned] or list(range(len(probe)))
        probe, truth, tasks, theirs_dev = ([rows[i] for i in keep] for rows in (probe, truth, tasks, theirs_dev))
        floor = majority_floor(truth, tasks) if probe else math.nan
        source_dev = _accuracy(theirs_dev, truth) if probe else math.nan
        shares: list[float] = []

        def evaluate(step: int) -> None:
            if step % p.eval_every == 0 or step == p.steps:
                steps.append(float(step))
                losses.append(mean_loss(student, tokenizer, dev))
                if probe:
                    shares.append(share_above_floor(_accuracy(next_words(student, tokenizer, probe), truth),
                                                    source_dev, floor))

        figures = {"spectral_distance": ffn_spectral_distance(student, source, origins),
                   "parameters": float(parameters(student)), **{f"{SCORED}{t}": lead for t, lead in learned.items()}}
        stream = inputs.corpus.stream(ctx.seed)
        train_steps(student, stream, p.steps, p.batch_size, p.learning_rate, step_loss=self.step_loss(source),
                    on_step=evaluate)
        ctx.record_curve("val_loss", steps, losses, unit="nats", higher_is_better=False)
        if probe:
            ctx.record_curve("dev_share", steps, shares, unit="share", higher_is_better=True)
        prompts = inputs.corpus.test
        figures["perplexity"] = math.exp(mean_loss(student, tokenizer, inputs.corpus.dev))
        cka_prompts = prompts[:CKA_PROMPTS]
        figures["cka"] = linear_cka(hidden_states(source, tokenizer, cka_prompts).numpy(),
                                    hidden_states(student, tokenizer, cka_prompts).numpy())
        answers = dict(zip(inputs.corpus.test_ids, next_words(student, tokenizer, prompts), strict=True))
        theirs = dict(zip(inputs.corpus.test_ids, next_words(source, tokenizer, prompts), strict=True))
        return InitResult(answers, tuple(steps), tuple(losses), figures, theirs)


def _accuracy(predicted: Sequence[str], truth: Sequence[str]) -> float:
    return sum(a == b for a, b in zip(predicted, truth, strict=True)) / len(truth)


def ffn_spectral_distance(student: Any, source: Any, origins: Origins) -> float:
    """Mean over the student's FFN matrices of their spectral distance to the same matrix of each origin layer."""
    values = []
    for block, layers in zip(student.model.layers, origins, strict=True):
        mine = ffn_of(block).matrices()
        for layer in layers:
            theirs = ffn_of(source.model.layers[layer]).matrices()
            values += [spectral_distance(t.double().numpy(), m.double().numpy())
                       for t, m in zip(theirs, mine, strict=True)]
    return float(np.mean(values))


def evenly_spaced_layers(source_layers: int, student_layers: int) -> list[int]:
    """The source layers a student of `student_layers` stands for, first and last kept (pruning's choice)."""
    return [round(j * (source_layers - 1) / max(1, student_layers - 1)) for j in range(student_layers)]


@torch.no_grad()
def calibration_ids(inputs: InitInputs, tokens: int) -> torch.Tensor:
    """Training lines (the first ones, in order) whose non-pad tokens reach `tokens`."""
    lines, count = [], 0
    for line in inputs.corpus.train:
        lines.append(line)
        count += len(line.split()) + 1
        if count >= tokens:
            break
    return encode_batch(inputs.corpus.tokenizer, lines)


@torch.no_grad()
def ffn_inputs(source: Any, ids: torch.Tensor) -> list[torch.Tensor]:
    """Per source layer, its FFN's inputs (post-attention RMSNorm output) at the non-pad tokens of `ids`."""
    captured: list[torch.Tensor] = []
    hooks = [block.mlp.register_forward_hook(lambda _m, args, _out: captured.append(args[0]))
             for block in source.model.layers]
    try:
        source(input_ids=ids, attention_mask=(ids != PAD).long(), use_cache=False)
    finally:
        for hook in hooks:
            hook.remove()
    mask = ids != PAD
    return [x[mask] for x in captured]
