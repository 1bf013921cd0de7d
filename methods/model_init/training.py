"""The loss and the measures shared by the source and every student: next-token cross-entropy over the non-pad
tokens (optionally mixed with a distillation term), the dev loss, next-word answers and hidden states. Both train
with `methods.common.corpus_training.train_steps` (AdamW with a 5 % linear warm-up then a cosine decay to 10 % of
the peak); a student's dev loss is measured every `eval_every` steps (step 0 included:
what the initialisation is worth)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from methods.model_init.text import encode_batch
from methods.common.vocab import PAD, WordTokenizer

StepLoss = Callable[[Any, torch.Tensor], torch.Tensor]  # (model, ids) -> loss


def token_loss(model: Any, ids: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of every next non-pad token."""
    logits = model(input_ids=ids, attention_mask=(ids != PAD).long(), use_cache=False).logits[:, :-1]
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:], ignore_index=PAD)


def answer_weighted_loss(weight: float) -> StepLoss:
    """Next-token cross-entropy with each line's last token (its answer) weighted `weight` against 1 for the rest:
    a question's answer is one token of twenty, so at weight 1 the source spends its steps on the questions' text
    (`token_loss` itself at weight 1)."""
    if weight == 1.0:
        return token_loss

    def loss(model: Any, ids: torch.Tensor) -> torch.Tensor:
        logits = model(input_ids=ids, attention_mask=(ids != PAD).long(), use_cache=False).logits[:, :-1]
        targets = ids[:, 1:]
        losses = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=PAD,
                                                   reduction="none")
        weights = (targets != PAD).float()
        weights[torch.arange(len(ids)), weights.sum(1).long() - 1] = weight
        return (losses * weights).sum() / weights.sum()

    return loss


@torch.no_grad()
def mean_loss(model: Any, tokenizer: WordTokenizer, lines: Sequence[str], batch_size: int = 128) -> float:
    """Mean next-token cross-entropy (nats) over every non-pad token of `lines`."""
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(lines), batch_size):
        ids = encode_batch(tokenizer, lines[start:start + batch_size])
        tokens = int((ids[:, 1:] != PAD).sum())
        total += float(token_loss(model, ids)) * tokens
        count += tokens
    return total / count


@torch.no_grad()
def next_words(model: Any, tokenizer: WordTokenizer, prompts: Sequence[str], batch_size: int = 128) -> list[str]:
    """The most likely next word after each prompt (greedy, one token)."""
    model.eval()
    words: list[str] = []
    for start in range(0, len(prompts), batch_size):
        ids = encode_batch(tokenizer, prompts[start:start + batch_size])
        logits = model(input_ids=ids, attention_mask=(ids != PAD).long(), use_cache=False).logits
        last = (ids != PAD).sum(dim=1) - 1
        best = logits[torch.arange(len(ids)), last].argmax(dim=-1)
        words += [tokenizer.words[int(i)] for i in best]
    return words


@torch.no_grad()
def hidden_states(model: Any, tokenizer: WordTokenizer, prompts: Sequence[str], limit: int = 2048) -> torch.Tensor:
    """(n, hidden) the last layer's normed states of the prompts' non-pad tokens, at most `limit` of them."""
    ids = encode_batch(tokenizer, prompts)
    out = model(input_ids=ids, attention_mask=(ids != PAD).long(), output_hidden_states=True, use_cache=False)
    return out.hidden_states[-1][ids != PAD][:limit].double()
