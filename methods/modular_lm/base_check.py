"""Bases that know every domain: before any fine-tuning, the seed's dense base answers the corpus's dev split and
each domain's accuracy must clear its floor (the share of the domain's most frequent dev answer: what answering
one word always scores) by a margin. A base that fails a domain would make every method fail it too, so a
comparison of methods there says nothing about modularity; the run stops with an error instead.

The dev split is the corpus's validation split: no test question is read here.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from harness import RunContext
from methods.common.corpus import DOMAINS, Example
from methods.common.vocab import WordTokenizer
from methods.modular_lm.scoring import is_correct


def majority_floors(examples: Sequence[Example]) -> dict[str, float]:
    """Per domain, the share of its most frequent answer: the accuracy of always giving that answer."""
    floors = {}
    for domain in DOMAINS:
        answers = Counter(e.answer for e in examples if e.domain == domain)
        floors[domain] = max(answers.values()) / sum(answers.values())
    return floors


def domain_accuracy(model: Any, tokenizer: WordTokenizer, examples: Sequence[Example]) -> dict[str, float]:
    """Per domain, the greedy answers' accuracy (the task's checkers) of a dense model."""
    from methods.modular_lm.evaluation import greedy_answers

    answers = greedy_answers(model, tokenizer, examples, None, "dev", record=False)
    correct: dict[str, list[bool]] = {d: [] for d in DOMAINS}
    for answer, example in zip(answers, examples, strict=True):
        correct[example.domain].append(is_correct(answer.generation, example.answer))
    return {d: sum(c) / len(c) for d, c in correct.items()}


def check_base(model: Any, tokenizer: WordTokenizer, dev: Sequence[Example], margin: float, ctx: RunContext) -> None:
    """Record the base's dev accuracy per domain (`base_dev_<domain>`) and its smallest excess over the domain's
    floor (`base_dev_margin`); raise when a domain's excess is below `margin`."""
    accuracy = domain_accuracy(model, tokenizer, dev)
    floors = majority_floors(dev)
    for domain in DOMAINS:
        ctx.record(f"base_dev_{domain}", accuracy[domain])
    excess = {d: accuracy[d] - floors[d] for d in DOMAINS}
    ctx.record("base_dev_margin", min(excess.values()))
    weak = [f"{d} {accuracy[d]:.2f} (floor {floors[d]:.2f})" for d in DOMAINS if excess[d] < margin]
    if weak:
        raise RuntimeError(
            f"the seed-{ctx.seed} base does not know every domain before fine-tuning: dev accuracy {', '.join(weak)} "
            f"is below its floor + {margin}; pre-train the base longer (the dataset's args.model.config.steps) or "
            "lower the method's base_margin")
