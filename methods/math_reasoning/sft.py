"""Supervised fine-tuning of a causal LM on question-answer pairs, loss on the answer tokens only.

Both papers train the student this way: STAT by SFT on its selected or synthesised pairs, GRACE's ground
truth by distilling each teacher's responses. The text is GRACE's format (`PROMPT` + response + eos); prompt
tokens carry label -100. The prompt and the response are tokenised apart and joined, so the boundary is
exact and generation after `PROMPT` sees the same tokens training did.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

PROMPT = "### Problem:\n{question}\n\n### Solution:\n"
IGNORE = -100


@dataclass(frozen=True)
class Encoded:
    """One training pair as token ids, with the prompt's length (its labels are masked)."""

    ids: tuple[int, ...]
    prompt_length: int


def prompt_text(question: str) -> str:
    return PROMPT.format(question=question)


def encode_pair(tokenizer, question: str, response: str) -> Encoded:
    """Prompt ids + response ids + eos, tokenised apart (see the module docstring)."""
    prompt = tokenizer(prompt_text(question), add_special_tokens=False)["input_ids"]
    answer = tokenizer(response, add_special_tokens=False)["input_ids"]
    return Encoded(tuple(prompt + answer + [tokenizer.eos_token_id]), len(prompt))


def collate(batch: Sequence[Encoded], pad_id: int, max_length: int | None = None):
    """Right-padded ids, attention mask and labels (prompt and padding masked with -100)."""
    rows = [e.ids[:max_length] if max_length else e.ids for e in batch]
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), pad_id)
    labels = torch.full((len(rows), width), IGNORE)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (row, example) in enumerate(zip(rows, batch, strict=True)):
        ids[i, :len(row)] = torch.tensor(row)
        mask[i, :len(row)] = 1
        labels[i, example.prompt_length:len(row)] = torch.tensor(row[example.prompt_length:])
    return ids, mask, labels


def response_loss(model, ids: torch.Tensor, mask: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean next-token NLL over the response tokens of the batch."""
    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1]
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), labels[:, 1:], ignore_index=IGNORE)


@dataclass(frozen=True)
class SFTConfig:
    """AdamW, linear warm-up then cosine decay, grad-norm clipping (GRACE: 6 % warm-up, cosine, AdamW)."""

    steps: int = 600
    batch_size: int = 32
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    warmup_fraction: float = 0.06
    grad_clip: float = 1.0
    max_length: int = 256


@dataclass(frozen=True)
class SFTTrace:
    first_loss: float
    final_loss: float
    train_s: float
    examples_seen: int


def train(model, pad_id: int, examples: Sequence[Encoded], config: SFTConfig, seed: int) -> SFTTrace:
    """`config.steps` AdamW steps on mini-batches drawn without replacement epoch by epoch (seeded)."""
    if not examples:
        raise ValueError("no training examples: the selected training set is empty")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay,
                                  betas=(0.9, 0.95))
    warmup = max(1, int(config.warmup_fraction * config.steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(
        (step + 1) / warmup, 0.5 * (1 + math.cos(math.pi * min(step, config.steps) / config.steps))))
    order, position, losses = rng.permutation(len(examples)), 0, []
    model.train()
    started = time.perf_counter()
    for _ in range(config.steps):
        if position + config.batch_size > len(order):
            order, position = rng.permutation(len(examples)), 0
        batch = [examples[i] for i in order[position:position + config.batch_size]]
        position += config.batch_size
        loss = response_loss(model, *collate(batch, pad_id, config.max_length))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
    model.eval()
    return SFTTrace(losses[0], float(np.mean(losses[-20:])), time.perf_counter() - started,
                    config.steps * min(config.batch_size, len(examples)))
