"""Batched generation of solutions: greedy (pass@1) or sampled at a temperature (average-at-k, teachers).

Prompts are left-padded so every row continues from its last prompt token; generation stops at eos or
`max_new_tokens`. The harness's scorer (`answers.py`) reads the decoded continuations.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from methods.math_reasoning.sft import prompt_text


@dataclass(frozen=True)
class Decoding:
    """Greedy when temperature is 0 (the papers' pass@1 is greedy or near-greedy, T 0.1)."""

    temperature: float = 0.0
    max_new_tokens: int = 96
    batch_size: int = 64

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")


@dataclass(frozen=True)
class Generations:
    texts: list[str]
    seconds: float
    new_tokens: int


def generate(model, tokenizer, questions: Sequence[str], decoding: Decoding = Decoding(), seed: int = 0) -> Generations:
    """One continuation per question, in order, after the family's prompt."""
    torch.manual_seed(seed)
    padding_side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    texts, new_tokens = [], 0
    started = time.perf_counter()
    try:
        for start in range(0, len(questions), decoding.batch_size):
            chunk = [prompt_text(q) for q in questions[start:start + decoding.batch_size]]
            batch = tokenizer(chunk, return_tensors="pt", padding=True, add_special_tokens=False)
            sampling = {"do_sample": True, "temperature": decoding.temperature, "top_k": 0, "top_p": 1.0} \
                if decoding.temperature > 0 else {"do_sample": False}
            with torch.no_grad():
                out = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                     max_new_tokens=decoding.max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                                     eos_token_id=tokenizer.eos_token_id, **sampling)
            continuation = out[:, batch["input_ids"].shape[1]:]
            new_tokens += int((continuation != tokenizer.pad_token_id).sum())
            texts.extend(tokenizer.batch_decode(continuation, skip_special_tokens=True))
    finally:
        tokenizer.padding_side = padding_side
    return Generations(texts, time.perf_counter() - started, new_tokens)
