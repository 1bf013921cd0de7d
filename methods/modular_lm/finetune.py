"""What the three fine-tuned models share: the seed's cached dense base, the training stream over the corpus,
and evaluation under the analysis conditions. Every method trains for the same number of steps of the same
batch size from the same base (an equal token budget)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from harness import RunContext
from methods.modular_lm.params import FinetuneParams, MixtureParams
from methods.modular_lm.inputs import Answer, ModularInputs


def run_finetuned(inputs: ModularInputs, ctx: RunContext, params: FinetuneParams,
                  adapt: Callable[[Any, Any], Any]) -> list[Answer]:
    """Load the seed's base, `adapt(model, stream)` it (returning the shared `Routing` or None for a dense
    model), record the training time and losses, and answer the test questions under every condition."""
    import torch

    from methods.common.corpus import build_corpus
    from methods.modular_lm.evaluation import analysed_answers
    from methods.common.tiny_llama import load
    from methods.common.corpus_training import TrainingStream

    inputs.require_model("this method")
    torch.set_num_threads(ctx.threads)
    torch.manual_seed(ctx.seed)
    model, tokenizer = load(inputs.base_dir(ctx.seed))
    stream = TrainingStream(build_corpus(inputs.corpus), tokenizer, params.answer_weight, ctx.seed)
    started = time.perf_counter()
    routing = adapt(model, stream)
    ctx.record("finetune_s", time.perf_counter() - started, "s")
    experts = params.experts if isinstance(params, MixtureParams) else 1
    steer = params.steer_bias if isinstance(params, MixtureParams) else 0.0
    return analysed_answers(model, tokenizer, inputs.examples, routing, experts, steer)


def record_losses(ctx: RunContext, name: str, losses: list[float]) -> None:
    """The loss curve, downsampled to at most 50 points, and its last value."""
    stride = max(1, len(losses) // 50)
    steps = list(range(0, len(losses), stride))
    ctx.record_curve(name, steps, [losses[s] for s in steps])
    ctx.record(f"{name}_final", losses[-1])
