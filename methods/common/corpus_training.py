"""Training on the generated corpus: a domain-balanced stream of batches (each row labelled with its domain,
MiCRo's stage-1 routing label) and the weighted next-token loss (the answer and end tokens weighted up); and
`train_steps`, the AdamW loop every tiny Llama of modular_lm and model_init trains with, whatever its batches.

The world domain's training text is its QA examples and its fact statements in equal shares, so a test
entity's facts are seen (as statements) though never asked about.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from methods.common.corpus import DOMAINS, Corpus
from methods.common.vocab import EOS, PAD, WordTokenizer


@dataclass
class Batch:
    ids: torch.Tensor  # (B, T) right-padded
    weight: torch.Tensor  # (B, T - 1) loss weight of predicting token t + 1
    domain: torch.Tensor  # (B,) domain index

    @property
    def attention_mask(self) -> torch.Tensor:
        return (self.ids != PAD).long()

    def token_domains(self) -> torch.Tensor:
        """(B, T) every token labelled with its example's domain."""
        return self.domain[:, None].expand_as(self.ids)


class TrainingStream:
    """Batches drawn domain by domain (each row's domain uniform over `domains`), seeded."""

    def __init__(self, corpus: Corpus, tokenizer: WordTokenizer, answer_weight: float, seed: int,
                 domains: Iterable[str] = DOMAINS):
        self.tokenizer = tokenizer
        self.answer_weight = answer_weight
        self.rng = random.Random(f"stream-{seed}")
        self.pools: dict[str, list[tuple[str, bool]]] = {}  # domain -> (text, has an answer)
        for domain in domains:
            texts = [(e.text, True) for e in corpus.train if e.domain == domain]
            if domain == "world":
                statements = list(corpus.statements)
                texts += [(s, False) for s in statements * max(1, len(texts) // max(1, len(statements)))]
            self.pools[domain] = texts
        self.domains = tuple(self.pools)

    def batch(self, size: int, domain: str | None = None) -> Batch:
        rows, weights, labels = [], [], []
        for _ in range(size):
            name = domain or self.rng.choice(self.domains)
            text, answered = self.rng.choice(self.pools[name])
            ids = [*self.tokenizer.encode(text), EOS]
            weight = [1.0] * (len(ids) - 1)
            if answered:  # the answer word and the end token
                weight[-2:] = [self.answer_weight] * 2
            rows.append(ids)
            weights.append(weight)
            labels.append(DOMAINS.index(name))
        width = max(map(len, rows))
        ids_t = torch.full((size, width), PAD)
        weight_t = torch.zeros(size, width - 1)
        for i, (row, weight) in enumerate(zip(rows, weights, strict=True)):
            ids_t[i, :len(row)] = torch.tensor(row)
            weight_t[i, :len(weight)] = torch.tensor(weight)
        return Batch(ids_t, weight_t, torch.tensor(labels))


def batch_loss(model: torch.nn.Module, batch: Batch) -> torch.Tensor:
    logits = model(input_ids=batch.ids, attention_mask=batch.attention_mask, use_cache=False).logits[:, :-1]
    token_loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch.ids[:, 1:], reduction="none")
    return (token_loss * batch.weight).sum() / batch.weight.sum()


class BatchStream(Protocol):
    """Seeded training batches: a `TrainingStream`, or model_init's `LineStream` of token ids."""

    def batch(self, size: int) -> Any: ...


def train_steps(model: torch.nn.Module, stream: BatchStream, steps: int, batch_size: int, learning_rate: float,
                parameters: Iterable[torch.nn.Parameter] | None = None,
                step_loss: Callable[[torch.nn.Module, Any], torch.Tensor] = batch_loss,
                on_step: Callable[[int], None] | None = None) -> list[float]:
    """AdamW over `parameters` (default: all) for `steps` batches, a 5% linear warm-up then a cosine decay to 10%;
    `on_step(s)` after step s (and once before the first, s = 0), in eval mode if it likes: each step sets train
    mode again. Returns the losses."""
    params = [p for p in (parameters if parameters is not None else model.parameters()) if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=learning_rate, weight_decay=0.01)
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(
        (s + 1) / warmup, 0.1 + 0.45 * (1 + math.cos(math.pi * min(s, steps) / steps))))
    if on_step is not None:
        on_step(0)
    losses = []
    for step in range(1, steps + 1):
        model.train()
        loss = step_loss(model, stream.batch(batch_size))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        losses.append(float(loss.item()))
        if on_step is not None:
            on_step(step)
    model.eval()
    return losses
