"""Chance: a uniform guess over the generator's 2^bits outputs (accuracy 2^-bits in expectation)."""
from __future__ import annotations

import numpy as np

from harness import Determinism, Method, RunContext
from methods.prng_learning.task import SequenceInputs


class Chance(Method):
    determinism = Determinism.EVERYWHERE  # integer draws scored by counting: the same on any CPU
    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        rng = np.random.default_rng([ctx.seed, 0xC4A])
        guesses = rng.integers(0, inputs.source.gen.vocab, size=inputs.numbers.shape)
        guesses[:, 0] = -1
        return guesses
