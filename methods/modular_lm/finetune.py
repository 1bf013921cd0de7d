"""What the fine-tuned models share: the seed's cached dense base (checked to know every domain before any
fine-tuning), the training stream over the corpus, the validation curve on the dev split, and evaluation under
the analysis conditions. Every method trains for the same number of steps of the same batch size from the same
base (an equal token budget)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from harness import RunContext
from methods.modular_lm.inputs import Answer, ModularInputs
from methods.modular_lm.params import FinetuneParams, MixtureParams


def run_finetuned(inputs: ModularInputs, ctx: RunContext, params: FinetuneParams,
                  adapt: Callable[[Any, Any, Any], Any]) -> list[Answer]:
    """Load the seed's base, check it (`base_check`), `adapt(model, stream, curve)` it (returning the shared
    `Routing`, or None for a dense model; `curve` a `ValidationCurve` to hook into training), record the
    training time, losses and validation curve, and answer the test questions under every condition."""
    import torch

    from methods.common.corpus import build_corpus
    from methods.common.corpus_training import TrainingStream
    from methods.common.tiny_llama import load
    from methods.modular_lm.base_check import check_base
    from methods.modular_lm.evaluation import analysed_answers
    from methods.modular_lm.validation import ValidationCurve, dev_batch

    inputs.require_model("this method")
    torch.set_num_threads(ctx.threads)
    torch.manual_seed(ctx.seed)
    model, tokenizer = load(inputs.base_dir(ctx.seed))
    corpus = build_corpus(inputs.corpus)
    check_base(model, tokenizer, corpus.dev, params.base_margin, ctx)
    stream = TrainingStream(corpus, tokenizer, params.answer_weight, ctx.seed)
    curve = ValidationCurve(model, dev_batch(corpus.dev, tokenizer, params.answer_weight), params.steps)
    started = time.perf_counter()
    routing = adapt(model, stream, curve)
    ctx.record("finetune_s", time.perf_counter() - started, "s")
    curve.record(ctx)
    experts = params.experts if isinstance(params, MixtureParams) else 1
    steer = params.steer_bias if isinstance(params, MixtureParams) else 0.0
    return analysed_answers(model, tokenizer, inputs.examples, routing, experts, steer)


def record_losses(ctx: RunContext, name: str, losses: list[float]) -> None:
    """The loss curve, downsampled to at most 50 points, and its last value."""
    stride = max(1, len(losses) // 50)
    steps = list(range(0, len(losses), stride))
    ctx.record_curve(name, steps, [losses[s] for s in steps])
    ctx.record(f"{name}_final", losses[-1])
