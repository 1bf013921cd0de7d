"""Q/K/V captured from a model's prefill of RULER prompts: the fidelity task's data from a real model.

Loader `model_capture` runs the family's tiny Llama (or any local checkpoint, `model: {path: DIR}`) on
`prompts` prompts of one RULER task and keeps every layer's post-RoPE Q, K, V (`hf_attention.capture_qkv`),
as a capture file would hold them. Prompts are drawn from a seed space of their own, apart from both the
model's training prompts and the long-context task's evaluation prompts. Generated prompts differ in
length by a few tokens, so all are cut to the shortest: by causality the first n tokens' Q/K/V are those
of a prefill of that prefix.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from harness import DataError
from methods.sparse_attention import ruler
from methods.sparse_attention.data import CapturedAttention
from methods.sparse_attention.hf_attention import capture_qkv
from methods.sparse_attention.long_context import EVAL_SEED_BASE, load_model, model_dir

CAPTURE_SEED_BASE = 2 * EVAL_SEED_BASE


def model_capture(task: str = "kv_retrieval", context_length: int = 2048, prompts: int = 3,
                  model: Mapping[str, Any] | None = None, layers: list[int] | None = None) -> CapturedAttention:
    """Every layer's (or `layers`') Q/K/V for `prompts` prompts of `task` at `context_length` tokens."""
    if task not in ruler.TASKS:
        raise DataError(f"unknown RULER task {task!r}", field="args.task", hint=f"Known: {', '.join(ruler.TASKS)}.")
    if not isinstance(prompts, int) or prompts < 1:
        raise DataError(f"prompts must be a positive integer, got {prompts!r}", field="args.prompts")
    path = model_dir(dict(model or {}))
    loaded, tokenizer = load_model(path, torch.float32)
    samples = ruler.generate(task, context_length, prompts, seed=CAPTURE_SEED_BASE)
    try:
        captures = [capture_qkv(loaded, torch.tensor(tokenizer.encode(s.prompt)), layers) for s in samples]
    except ValueError as exc:
        raise DataError(str(exc), field="args.layers") from None
    n = min(c["q"].shape[2] for c in captures)
    q, k, v = (np.stack([c[name][:, :, :n] for c in captures]) for name in ("q", "k", "v"))
    return CapturedAttention(q, k, v, captures[0]["layers"], f"{path} ({task}, {n} tokens)")
