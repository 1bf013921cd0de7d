"""The text every model here trains and is scored on: lines of whitespace-separated words split into train, dev
and test, and a word tokenizer over them. The generated corpus is modular_lm's four-domain corpus (logic,
social, world, language), reused as the multi-domain corpus; a user's corpus comes from `byo.py`.

Every line's last word is its "answer": a test line is scored by whether the model predicts that word from the
rest (for the generated corpus, the question's one-word answer after `a :`). Every dev and test line names its
task type (`domain/template` for the generated corpus): accuracy is scored on the task types a suite names, each
beside its majority-class floor (`measures.majority_floor`).

The splits are disjoint: no test or dev line is a training line (the source and every student train on the
train lines only; `tests/model_init/test_split.py`). Training batches draw lines uniformly, or (`balanced`) a
group first (the generated corpus's domain, a user's task type), then a line of it: modular_lm's domain-balanced
stream, without which the world domain's lines (its questions and fact statements) are a thirteenth of the
batches."""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from methods.common.corpus import CorpusConfig, build_corpus
from methods.common.vocab import PAD, WordTokenizer

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class TextCorpus:
    """Lines by split; `test_ids` name the test lines (for the predictions table); `words` every word of every
    split (the tokenizer's, kept when the test lines' answers are blanked); `dev_tasks` and `test_tasks` each
    line's task type ("" for a dev line no accuracy probe reads)."""

    train: tuple[str, ...]
    dev: tuple[str, ...]
    test: tuple[str, ...]
    test_ids: tuple[str, ...]
    words: tuple[str, ...] = ()
    dev_tasks: tuple[str, ...] = ()
    test_tasks: tuple[str, ...] = ()
    train_groups: tuple[str, ...] = ()
    balanced: bool = False

    @classmethod
    def of(cls, train: Sequence[str], dev: Sequence[str], test: Sequence[str], test_ids: Sequence[str],
           dev_tasks: Sequence[str] | None = None, test_tasks: Sequence[str] | None = None,
           train_groups: Sequence[str] | None = None) -> "TextCorpus":
        words = sorted({w for line in (*train, *dev, *test) for w in line.split()})
        return cls(tuple(train), tuple(dev), tuple(test), tuple(test_ids), tuple(words),
                   tuple(dev_tasks if dev_tasks is not None else ["text"] * len(dev)),
                   tuple(test_tasks if test_tasks is not None else ["text"] * len(test)),
                   tuple(train_groups if train_groups is not None else ["text"] * len(train)))

    def stream(self, seed: int) -> "LineStream":
        """Seeded training batches: uniform over the lines, or over the groups first when `balanced`."""
        return LineStream(self.train, self.tokenizer, seed, self.train_groups if self.balanced else None)

    def restricted(self, tasks: Sequence[str]) -> "TextCorpus":
        """Only the test lines of the named task types (a name matches itself and its `name/...` templates); the
        dev lines all kept (the dev loss reads them all), those of other types marked unprobed ("")."""
        def named(task: str) -> bool:
            return any(task == name or task.startswith(name + "/") for name in tasks)

        keep = [i for i, task in enumerate(self.test_tasks) if named(task)]
        if not keep:
            raise ValueError(f"no test line is of the task types {list(tasks)}; the corpus has "
                             f"{sorted(set(self.test_tasks))}")
        return replace(self, test=tuple(self.test[i] for i in keep), test_ids=tuple(self.test_ids[i] for i in keep),
                       test_tasks=tuple(self.test_tasks[i] for i in keep),
                       dev_tasks=tuple(t if named(t) else "" for t in self.dev_tasks))

    def probe(self) -> tuple[list[str], list[str], list[str]]:
        """The probed dev lines' prompts, answers and task types (the dev accuracy curve's)."""
        rows = [(line.rsplit(" ", 1), task) for line, task in zip(self.dev, self.dev_tasks, strict=True) if task]
        return [r[0][0] for r in rows], [r[0][1] for r in rows], [r[1] for r in rows]

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
                         [e.text for e in corpus.test], [e.id for e in corpus.test],
                         [f"{e.domain}/{e.template}" for e in corpus.dev],
                         [f"{e.domain}/{e.template}" for e in corpus.test],
                         [e.domain for e in corpus.train] + ["world"] * len(corpus.statements))


def encode_batch(tokenizer: WordTokenizer, lines: Sequence[str]) -> torch.Tensor:
    """(B, T) ids, BOS first, right-padded with PAD."""
    import torch

    rows = [tokenizer.encode(line) for line in lines]
    ids = torch.full((len(rows), max(map(len, rows))), PAD)
    for i, row in enumerate(rows):
        ids[i, :len(row)] = torch.tensor(row)
    return ids


class LineStream:
    """Seeded batches of training lines (drawn with replacement): uniformly, or, given each line's group, a group
    uniformly and then one of its lines."""

    def __init__(self, lines: Sequence[str], tokenizer: WordTokenizer, seed: int,
                 groups: Sequence[str] | None = None):
        self.lines = list(lines)
        self.tokenizer = tokenizer
        self.rng = random.Random(f"lines-{seed}")
        self.pools: list[list[str]] = []
        if groups is not None:
            by_group: dict[str, list[str]] = {}
            for line, group in zip(self.lines, groups, strict=True):
                by_group.setdefault(group, []).append(line)
            self.pools = [by_group[group] for group in sorted(by_group)]

    def _line(self) -> str:
        return self.rng.choice(self.rng.choice(self.pools)) if self.pools else self.rng.choice(self.lines)

    def batch(self, size: int) -> torch.Tensor:
        return encode_batch(self.tokenizer, [self._line() for _ in range(size)])
