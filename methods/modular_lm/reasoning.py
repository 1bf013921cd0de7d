"""Held-out multi-step reasoning items, one kind per benchmark column of the paper's performance table (T-MiCRo-1:
GSM8K, BBH, and for the social expert ToMi), built from the corpus's words and never trained on:

- `arithmetic` (GSM8K's column): two operations chained, `what is A plus B minus C ?`, the final number checked
  with math-verify (training asks one operation). Not word problems: the word-level tokenizer knows only the
  corpus's words, so a new word would read as unknown;
- `deduction` (BBH's logical deduction): a three-step chain of comparisons, the statements in shuffled order
  (training: two steps, in order), answered yes or no;
- `social` (ToMi-style): two moves while the agent is away, asking where the agent will look (first place) or
  where the object is (last place) (training: one move);
- `language` (BBH-style judgement): agreement across two attractor phrases (training: at most one).

Each item is scored by exact match of its final answer (`scoring.is_correct`), like GSM8K and BBH. The items are
drawn from their own seeded generator and are disjoint from the corpus's questions by construction (templates the
corpus never uses).
"""
from __future__ import annotations

import random
from collections.abc import Callable

from methods.common.corpus import ADJECTIVES, NAMES, OBJECTS, PLACES, PLURAL, SINGULAR, Example

# kind -> the corpus domain whose expert should serve it, and the paper's column it stands in for
KINDS: dict[str, tuple[str, str]] = {
    "arithmetic": ("logic", "GSM8K"),
    "deduction": ("logic", "BBH (logical deduction)"),
    "social": ("social", "ToMi"),
    "language": ("language", "BBH (agreement judgement)"),
}


def _arithmetic(rng: random.Random) -> tuple[str, str]:
    a, b = rng.randrange(50), rng.randrange(50)
    c = rng.randrange(a + b + 1)
    return f"what is {a} plus {b} minus {c} ?", str(a + b - c)


def _deduction(rng: random.Random) -> tuple[str, str]:
    chain = rng.sample(NAMES, 4)
    facts = [f"{chain[i]} is bigger than {chain[i + 1]} ." for i in range(3)]
    rng.shuffle(facts)
    first, second = sorted(rng.sample(range(4), 2))
    forward = rng.random() < 0.5
    x, y = (chain[first], chain[second]) if forward else (chain[second], chain[first])
    return " ".join(facts) + f" is {x} bigger than {y} ?", "yes" if forward else "no"


def _social(rng: random.Random) -> tuple[str, str]:
    agent, mover, other = rng.sample(NAMES, 3)
    first, second, third = rng.sample(PLACES, 3)
    obj = rng.choice(OBJECTS)
    story = (f"{agent} puts the {obj} in the {first} . {agent} leaves . {mover} moves the {obj} to the {second} . "
             f"{other} moves the {obj} to the {third} . ")
    if rng.random() < 0.5:
        return story + f"where will {agent} look for the {obj} ?", first
    return story + f"where is the {obj} ?", third


def _language(rng: random.Random) -> tuple[str, str]:
    plural = rng.random() < 0.5
    subject = (PLURAL if plural else SINGULAR)[rng.randrange(len(SINGULAR))]
    grammatical = rng.random() < 0.5
    verb = "are" if plural == grammatical else "is"
    near = [rng.choice(PLURAL if rng.random() < 0.5 else SINGULAR) for _ in range(2)]
    return (f"the {subject} near the {near[0]} near the {near[1]} {verb} {rng.choice(ADJECTIVES)} . "
            "is this sentence grammatical ?", "yes" if grammatical else "no")


_GENERATORS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "arithmetic": _arithmetic, "deduction": _deduction, "social": _social, "language": _language}


def reasoning_items(per_kind: int, seed: int = 0) -> list[tuple[str, Example]]:
    """(kind, example) pairs: `per_kind` distinct questions of each kind, the same for the same arguments."""
    rng = random.Random(f"reasoning-{seed}")
    items: list[tuple[str, Example]] = []
    for kind, generate in _GENERATORS.items():
        seen: set[str] = set()
        while len(seen) < per_kind:
            question, answer = generate(rng)
            if question in seen:
                continue
            seen.add(question)
            items.append((kind, Example(f"reason-{kind}-{len(seen) - 1}", KINDS[kind][0], kind, question, answer,
                                        ood=True)))
    return items
