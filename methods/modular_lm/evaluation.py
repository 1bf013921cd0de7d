"""Greedy answers of a (dense or mixture) model to test questions, with the routing of the prompt's tokens,
under the analysis conditions: as trained, each expert removed, and the router steered towards each expert."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import torch

from methods.modular_lm.blocks import Routing
from methods.common.corpus import Example
from methods.modular_lm.inputs import Answer
from methods.common.vocab import EOS, WordTokenizer

MAX_NEW_TOKENS = 3  # every answer is one word, then the end token
BATCH = 128


@torch.no_grad()
def greedy_answers(model: Any, tokenizer: WordTokenizer, examples: Sequence[Example],
                   routing: Routing | None, condition: str, record: bool) -> list[Answer]:
    """Greedy decoding of up to MAX_NEW_TOKENS words per prompt by a transformers Llama `model`; prompts of one
    length are batched unpadded."""
    by_length: dict[int, list[tuple[Example, list[int]]]] = defaultdict(list)
    for example in examples:
        encoded = tokenizer.encode(example.prompt)
        by_length[len(encoded)].append((example, encoded))
    found: dict[str, Answer] = {}
    for group in by_length.values():
        for start in range(0, len(group), BATCH):
            chunk = group[start:start + BATCH]
            ids = torch.tensor([encoded for _, encoded in chunk])
            counts = None
            generated = []
            for step in range(MAX_NEW_TOKENS):
                if routing is not None:
                    routing.record = record and step == 0
                    routing.chosen.clear()
                logits = model(input_ids=ids, use_cache=False).logits[:, -1]
                if routing is not None and record and step == 0:
                    counts = _counts(routing, len(model.model.layers[0].experts))
                next_ids = logits.argmax(dim=-1)
                generated.append(next_ids)
                ids = torch.cat([ids, next_ids[:, None]], dim=1)
                if bool((torch.stack(generated, 1) == EOS).any(dim=1).all()):
                    break
            tokens = torch.stack(generated, dim=1).tolist()
            for row, ((example, prompt), new) in enumerate(zip(chunk, tokens, strict=True)):
                routed = None if not record else (counts[row] if counts is not None else ((len(prompt),),) *
                                                  len(model.model.layers))
                found[example.id] = Answer(condition, example.id, tokenizer.decode(new), routed)
    if routing is not None:
        routing.record = False
        routing.chosen.clear()
    return [found[example.id] for example in examples]


def _counts(routing: Routing, experts: int) -> list[tuple[tuple[int, ...], ...]]:
    """Per batch row, per layer: how many prompt tokens each expert took."""
    per_layer = [torch.nn.functional.one_hot(chosen, experts).sum(dim=1) for chosen in routing.chosen]
    stacked = torch.stack(per_layer, dim=1).tolist()  # (batch, layers, experts)
    return [tuple(tuple(layer) for layer in row) for row in stacked]


def analysed_answers(model: Any, tokenizer: WordTokenizer, examples: Sequence[Example],
                     routing: Routing | None, experts: int, steer_bias: float) -> list[Answer]:
    """The full condition (with routing counts); for a mixture also each expert removed and each steered."""
    answers = greedy_answers(model, tokenizer, examples, routing, "full", record=True)
    if routing is None:
        return answers
    for expert in range(experts):
        routing.removed = (expert,)
        answers += greedy_answers(model, tokenizer, examples, routing, f"remove:{expert}", record=False)
        routing.removed = ()
        routing.bias = torch.zeros(experts)
        routing.bias[expert] = steer_bias
        answers += greedy_answers(model, tokenizer, examples, routing, f"steer:{expert}", record=False)
        routing.bias = None
    return answers
