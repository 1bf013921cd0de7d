"""The contract `prng_learning.next_number`: predict each next output of a pseudorandom generator in context.

A method sees the seed's held-out sequences (from (a, c) pairs no model trained on) and the source (generator,
modulus, the pair split); it returns a (n, L) array of guesses, column i its guess of x_i made from x_0 .. x_{i-1}
only (column 0 is not scored). The predictions table holds one row per sequence with its numbers and guesses
space-separated, so stored runs and a user's guesses are re-scored by the same code."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from methods.prng_learning.data import PrngSource
from methods.prng_learning.metrics import Scored


@dataclass(frozen=True)
class SequenceInputs:
    """The seed's held-out sequences: ids, a (n, L) int array, and the source they came from."""

    source: PrngSource
    seed: int
    ids: tuple[str, ...]
    numbers: np.ndarray


class NextNumber(Task):
    """Held-out sequences of one generator at m = 2^k (a new draw of seed states per seed) or a user's (`byo`)."""

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "prng_learning.next_number", "the held-out pairs are the loader's arguments")

    def instance(self, data: PrngSource, split: Mapping[str, Any], seed: int) -> Instance:
        ids, numbers = data.sequences(seed)
        return Instance(inputs=SequenceInputs(data, seed, ids, numbers), truth=numbers)

    def tiny_instance(self, seed: int) -> Instance:
        """LCG at m = 2^4, 16 numbers per sequence, every held-out pair twice."""
        from methods.prng_learning.data import generated

        return self.instance(replace(generated(k=4, seq_len=16, test_fraction=0.25)), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        numbers = instance.truth
        guesses = np.asarray(output)
        if guesses.shape != numbers.shape:
            raise ValueError(f"a next-number method returns a {numbers.shape} array of guesses, got shape "
                             f"{guesses.shape}")
        rows = [(name, " ".join(map(str, truth)), " ".join(map(str, guess)))
                for name, truth, guess in zip(instance.inputs.ids, numbers, guesses.astype(np.int64), strict=True)]
        return pd.DataFrame(rows, columns=["sequence", "numbers", "guesses"])

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_table(predictions)
        return {key: metric(scored) for key, metric in metrics.items()}

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance | None:
        pick = rng.integers(0, len(instance.truth), size=len(instance.truth))
        inputs = instance.inputs
        ids = tuple(inputs.ids[i] for i in pick)
        return Instance(replace(inputs, ids=ids, numbers=inputs.numbers[pick]), instance.truth[pick])


def scored_table(predictions: pd.DataFrame) -> Scored:
    """The predictions table back to arrays."""
    def parse(column: str) -> np.ndarray:
        return np.array([[int(v) for v in text.split()] for text in predictions[column]], dtype=np.int64)

    return Scored(parse("numbers"), parse("guesses"))
