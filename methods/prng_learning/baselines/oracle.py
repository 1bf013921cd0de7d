"""The oracle that knows each sequence's (a, c) and m (and the output map), not its seed state: for a plain LCG it
predicts x_i = (a x_{i-1} + c) mod m exactly from position 1; for truncated and permuted outputs it keeps the
hidden states consistent with the outputs seen under the true (a, c) and guesses their majority. It is the
ceiling: what the sequences allow once the pair is no longer to be inferred (the solver must infer it)."""
from __future__ import annotations

import numpy as np

from harness import Determinism, Method, RunContext
from harness.errors import DataError
from methods.prng_learning.baselines.solver import solver_guesses
from methods.prng_learning.task import SequenceInputs


class Oracle(Method):
    determinism = Determinism.EVERYWHERE  # integer arithmetic on the generator's state, scored by counting

    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        if inputs.pairs is None:
            raise DataError("the oracle needs each sequence's (a, c): these sequences do not give them",
                            field="a", hint="Give 'a' and 'c' on every line of the JSONL, or leave the oracle out.")
        gen = inputs.source.gen
        return np.stack([solver_guesses(gen, row, gen.m, pair)[0] for row, pair in zip(inputs.numbers, inputs.pairs,
                                                                                        strict=True)])
