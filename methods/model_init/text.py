"""The text every model here trains and is scored on: lines of whitespace-separated words split into train, dev
and test, and a word tokenizer over them. The generated corpus is modular_lm's four-domain corpus (logic,
social, world, language), reused as the multi-domain corpus; a user's corpus comes from `byo.py`.

Every line's last word is its "answer": a test line is scored by whether the model predicts that word from the
rest (for the generated corpus, the question's one-word answer after `a :`)."""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from methods.common.corpus import CorpusConfig, build_corpus
from methods.common.vocab import PAD, WordTokenizer

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class TextCorpus:
    """Lines by split; `test_ids` name the test lines (for the predictions table); `words` every word of every
    split (the tokenizer's, kept when the test lines' answers are blanked)."""

    train: tuple[str, ...]
    dev: tuple[str, ...]
    test: tuple[str, ...]
    test_ids: tuple[str, ...]
    words: tuple[str, ...] = ()

    @classmethod
    def of(cls, train: Sequence[str], dev: Sequence[str], test: Sequence[str], test_ids: Sequence[str]
           ) -> "TextCorpus":
        words = sorted({w for line in (*train, *dev, *test) for w in line.split()})
        return cls(tuple(train), tuple(dev), tuple(test), tuple(test_ids), tuple(words))

    @property
    def tokenizer(self) -> WordTokenizer:
        return WordTokenizer.over(self.words)

    def prompts(self) -> tuple[str, ...]:
        """The test lines without their last word: what a model answers."""
        return tuple(line.rsplit(" ", 1)[0] for line in self.test)

    def answers(self) -> tuple[str, ...]:
        return tuple(line.rsplit(" ", 1)[1] for line in self.test)


def generated_corpus(config: CorpusConfig) -> TextCorpus:
    """modular_lm's corpus as lines: its training questions and fact statements, its dev questions, its test
    questions (in-distribution and held-out templates)."""
    corpus = build_corpus(config)
    return TextCorpus.of([e.text for e in corpus.train] + list(corpus.statements), [e.text for e in corpus.dev],
                         [e.text for e in corpus.test], [e.id for e in corpus.test])


def encode_batch(tokenizer: WordTokenizer, lines: Sequence[str]) -> torch.Tensor:
    """(B, T) ids, BOS first, right-padded with PAD."""
    import torch

    rows = [tokenizer.encode(line) for line in lines]
    ids = torch.full((len(rows), max(map(len, rows))), PAD)
    for i, row in enumerate(rows):
        ids[i, :len(row)] = torch.tensor(row)
    return ids


class LineStream:
    """Seeded batches of training lines (drawn with replacement)."""

    def __init__(self, lines: Sequence[str], tokenizer: WordTokenizer, seed: int):
        self.lines = list(lines)
        self.tokenizer = tokenizer
        self.rng = random.Random(f"lines-{seed}")

    def batch(self, size: int) -> torch.Tensor:
        return encode_batch(self.tokenizer, [self.rng.choice(self.lines) for _ in range(size)])
