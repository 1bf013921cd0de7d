"""The policy network (transformers' GPT-2 classes, ~0.35M parameters) and the batched log-probabilities every
training objective needs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from methods.molecule_opt.policy.tokens import BOS, EOS, INDEX, PAD, VOCAB

MAX_LENGTH = 160  # prompt (<= 54 tokens for MOSES molecules) plus plan and script (longer ones are cut)


@dataclass(frozen=True)
class Sequences:
    """Right-padded token ids, their attention mask, and `scored`: 1 where a token's log-probability counts."""

    ids: torch.Tensor
    mask: torch.Tensor
    scored: torch.Tensor


def new_model(layers: int, width: int, heads: int) -> Any:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=len(VOCAB), n_positions=MAX_LENGTH, n_embd=width, n_layer=layers, n_head=heads,
                        bos_token_id=INDEX[BOS], eos_token_id=INDEX[EOS], pad_token_id=INDEX[PAD],
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(config)


def sequences(pairs: list[tuple[list[int], list[int]]], score_from: list[int] | None = None) -> Sequences:
    """(prompt, completion) pairs as one right-padded batch; the completion's tokens are scored from offset
    `score_from[i]` into it (0: the whole completion)."""
    width = min(max(len(p) + len(c) for p, c in pairs), MAX_LENGTH)
    ids = torch.full((len(pairs), width), INDEX[PAD], dtype=torch.long)
    mask = torch.zeros((len(pairs), width), dtype=torch.long)
    scored = torch.zeros((len(pairs), width), dtype=torch.float32)
    for row, (prompt, completion) in enumerate(pairs):
        tokens = (prompt + completion)[:width]
        ids[row, :len(tokens)] = torch.tensor(tokens)
        mask[row, :len(tokens)] = 1
        start = len(prompt) + (score_from[row] if score_from else 0)
        scored[row, start:len(tokens)] = 1.0
    return Sequences(ids, mask, scored)


def token_logprobs(model: Any, batch: Sequences) -> torch.Tensor:
    """log pi(token_t | tokens_<t) for every position t >= 1, shape (batch, length - 1); multiply by
    `batch.scored[:, 1:]` to keep the scored ones."""
    logits = model(input_ids=batch.ids, attention_mask=batch.mask).logits[:, :-1].float()
    return torch.log_softmax(logits, dim=-1).gather(-1, batch.ids[:, 1:, None]).squeeze(-1)


def mean_nll(model: Any, batch: Sequences) -> torch.Tensor:
    """Mean negative log-likelihood over the scored tokens of the batch."""
    weights = batch.scored[:, 1:]
    return -(token_logprobs(model, batch) * weights).sum() / weights.sum().clamp(min=1.0)
