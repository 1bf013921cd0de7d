"""An n-gram lookup fitted in context: the guess of x_i is the successor most often seen after the longest
recent context (up to `order` numbers) that occurred before in the same sequence, backing off to shorter
contexts, and to the most frequent number so far when no context matched. For a full-output LCG the order-1
table is the generator's own map, so it is perfect once the sequence revisits a number; before that it guesses."""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from harness import Determinism, Method, RunContext
from methods.prng_learning.params import NgramParams
from methods.prng_learning.task import SequenceInputs


def ngram_guesses(sequence: np.ndarray, order: int) -> np.ndarray:
    """Causal guesses for one sequence: entry i uses x_0 .. x_{i-1} only (entry 0 is -1)."""
    tables: list[defaultdict[tuple[int, ...], Counter[int]]] = [defaultdict(Counter) for _ in range(order + 1)]
    seen: Counter[int] = Counter()
    out = np.full(len(sequence), -1, dtype=np.int64)
    values = [int(v) for v in sequence]
    for i in range(1, len(values)):
        seen[values[i - 1]] += 1
        for n in range(1, order + 1):  # learn: the context of length n ending at i-2 was followed by x_{i-1}
            if i - 1 - n >= 0:
                tables[n][tuple(values[i - 1 - n:i - 1])][values[i - 1]] += 1
        guess = None
        for n in range(min(order, i), 0, -1):
            counts = tables[n].get(tuple(values[i - n:i]))
            if counts:
                guess = counts.most_common(1)[0][0]
                break
        out[i] = guess if guess is not None else seen.most_common(1)[0][0]
    return out


class NgramLookup(Method[NgramParams]):
    determinism = Determinism.EVERYWHERE  # counts of integer contexts, scored by counting

    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        return np.stack([ngram_guesses(row, self.params.order) for row in inputs.numbers])
