"""An n-gram table over the last `order` outputs, counted on the decoder's own training sequences (the same
recipe and seed: `stream.training_batches`), with backoff to shorter contexts and, where no context was ever
seen, to the most frequent training output. It sees the training pairs' sequences and the test sequence's last
outputs, never the held-out pairs' sequences as training data: a context met only in the test sequence is
unknown to it. So it scores what memorised local statistics of the training data give; for a plain LCG at
m = 2^k these are the low bits' short periods, not the unseen pair's (a, c)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from harness import Determinism, Method, RunContext
from harness.errors import DataError
from methods.prng_learning.params import NgramParams
from methods.prng_learning.stream import recipe, training_batches, vocab_size
from methods.prng_learning.task import SequenceInputs

MERGE_EVERY = 256  # batches between merges of the partial counts (memory against sorting cost)


def contexts(sequences: np.ndarray, n: int, vocab: int) -> np.ndarray:
    """(rows, L) codes of the n outputs before each position (base `vocab`); -1 where fewer than n precede."""
    codes = np.full(sequences.shape, -1, dtype=np.int64)
    if n == 0:
        codes[:, 1:] = 0
        return codes
    if sequences.shape[1] <= n:
        return codes
    code = np.zeros((sequences.shape[0], sequences.shape[1] - n), dtype=np.int64)
    for j in range(n):
        code = code * vocab + sequences[:, j:sequences.shape[1] - n + j]
    codes[:, n:] = code
    return codes


def _merged(keys: list[np.ndarray], counts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    return unique, np.bincount(inverse, weights=np.concatenate(counts)).astype(np.int64)


@dataclass(frozen=True)
class NgramTable:
    """Per context length n = 0 .. order: the sorted context codes and the successor most often seen after each
    (ties: the smallest number)."""

    order: int
    vocab: int
    codes: tuple[np.ndarray, ...]
    successors: tuple[np.ndarray, ...]

    @classmethod
    def fit(cls, batches: Iterable[np.ndarray], order: int, vocab: int) -> "NgramTable":
        """Count (context, successor) over every position of every training sequence, in bounded memory."""
        if vocab ** (order + 1) >= 2**62:
            raise DataError(f"an order-{order} table over {vocab} outputs overflows its 62-bit keys",
                            field="params.order", hint="Lower the order.")
        keys: list[list[np.ndarray]] = [[] for _ in range(order + 1)]
        counts: list[list[np.ndarray]] = [[] for _ in range(order + 1)]
        for index, batch in enumerate(batches, start=1):
            for n in range(order + 1):
                code = contexts(batch, n, vocab)
                seen = code >= 0
                unique, count = np.unique(code[seen] * vocab + batch[seen], return_counts=True)
                keys[n].append(unique)
                counts[n].append(count)
                if index % MERGE_EVERY == 0:
                    merged = _merged(keys[n], counts[n])
                    keys[n], counts[n] = [merged[0]], [merged[1]]
        codes, successors = [], []
        for n in range(order + 1):
            if not keys[n]:
                raise DataError("the n-gram table was given no training sequences", field="params.steps")
            key, count = _merged(keys[n], counts[n])
            context, successor = key // vocab, key % vocab
            best = np.lexsort((successor, -count, context))  # per context: highest count, then smallest number
            first = np.r_[True, context[best][1:] != context[best][:-1]]
            codes.append(context[best][first])
            successors.append(successor[best][first])
        return cls(order, vocab, tuple(codes), tuple(successors))

    def guesses(self, sequences: np.ndarray) -> np.ndarray:
        """Causal guesses: entry i from the longest known context among x_{i-order} .. x_{i-1} (entry 0: -1)."""
        out = np.full(sequences.shape, -1, dtype=np.int64)
        for n in range(self.order, -1, -1):
            code = contexts(sequences, n, self.vocab)
            at = np.searchsorted(self.codes[n], code).clip(max=len(self.codes[n]) - 1)
            known = (code >= 0) & (self.codes[n][at] == code) & (out < 0)
            out[known] = self.successors[n][at[known]]
        return out


class NgramLookup(Method[NgramParams]):
    determinism = Determinism.EVERYWHERE  # integer counts of the seeded training stream, scored by counting

    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        config = recipe(inputs.source, self.params)
        vocab = vocab_size(config)
        table = NgramTable.fit(training_batches(config, ctx.seed), self.params.order, vocab)
        ctx.record("table_contexts", float(sum(len(c) for c in table.codes)), "contexts")
        return table.guesses(inputs.numbers)
