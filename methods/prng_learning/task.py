"""The contract `prng_learning.next_number`: predict each next output of a pseudorandom generator in context.

A method sees the seed's held-out sequences (from (a, c) pairs no model trained on) and the source (generator,
modulus, the pair split); it returns a (n, L) array of guesses, column i its guess of x_i made from x_0 .. x_{i-1}
only (column 0 is not scored). The predictions table holds one row per sequence with its numbers and guesses
space-separated; scoring reads the guesses and takes the numbers from the instance, so stored runs and a user's
guesses (a `sequence`, `guesses` file as a suite's `predictions:`) are re-scored by the same code."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.prng_learning.data import PrngSource
from methods.prng_learning.metrics import Scored


@dataclass(frozen=True)
class SequenceInputs:
    """The seed's held-out sequences: ids, a (n, L) int array, the source they came from, and each sequence's
    (a, c) (None where unknown): the answer key only the oracle may read."""

    source: PrngSource
    seed: int
    ids: tuple[str, ...]
    numbers: np.ndarray
    pairs: np.ndarray | None = None


class NextNumber(Task):
    """Held-out sequences of one generator at m = 2^k (a new draw of seed states per seed) or a user's (`byo`)."""

    # One row per held-out sequence; the table's `numbers` column is kept for reading, the instance's are scored.
    predictions_schema = PredictionsSchema(
        (Column("sequence", "text", description="the sequence's id"),
         Column("guesses", "text", description="L space-separated whole numbers, guess i made from x_0 .. x_{i-1}")),
        sample="sequence")

    def test_samples(self, instance: Instance) -> tuple[str, ...]:
        return instance.inputs.ids

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "prng_learning.next_number", "the held-out pairs are the loader's arguments")

    def instance(self, data: PrngSource, split: Mapping[str, Any], seed: int) -> Instance:
        ids, numbers = data.sequences(seed)
        return Instance(inputs=SequenceInputs(data, seed, ids, numbers, data.pairs()), truth=numbers)

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
        """The guesses of the instance's sequences (a bootstrap draw repeats some) against their numbers."""
        guesses = predictions.set_index("sequence")["guesses"].loc[list(instance.inputs.ids)]
        scored = Scored(instance.truth, parsed_guesses(guesses, instance.truth.shape[1]),
                        instance.inputs.source.gen.m // 2)
        return {key: metric(scored) for key, metric in metrics.items()}

    def resample(self, instance: Instance, rng: np.random.Generator) -> Instance | None:
        pick = rng.integers(0, len(instance.truth), size=len(instance.truth))
        inputs = instance.inputs
        ids = tuple(inputs.ids[i] for i in pick)
        pairs = None if inputs.pairs is None else inputs.pairs[pick]
        return Instance(replace(inputs, ids=ids, numbers=inputs.numbers[pick], pairs=pairs), instance.truth[pick])


def parsed_guesses(guesses: pd.Series, length: int) -> np.ndarray:
    """A (n, length) array of the space-separated guesses, one text per sequence (indexed by its id); a
    `DataError` names a sequence whose text is not `length` whole numbers."""
    rows = []
    for sequence, text in guesses.items():
        try:
            row = [int(value) for value in text.split()]
        except ValueError:
            row = []
        if len(row) != length:
            raise DataError(f"sequence {sequence!r}: guesses must be {length} space-separated whole numbers, "
                            f"got {text[:60]!r}", field="guesses")
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(len(rows), length)
