"""The classical attacker that knows m and the generator's output map (not the pair, not the seed): it keeps every
full-period (a, c) and hidden state consistent with the numbers seen so far and guesses the majority next output
of the survivors. For a plain LCG the state is the output, so x_0, x_1, x_2 give a(x_1 - x_0) = x_2 - x_1 (mod m),
which fixes a modulo m / 2^v (v the 2-adic valuation of x_1 - x_0) and then c = x_1 - a x_0: three outputs
usually suffice. For truncated and permuted outputs the hidden low bits multiply the candidates; they are
enumerated up to `max_candidates` (an error beyond: this is what "perfect" costs)."""
from __future__ import annotations


import numpy as np

from harness import Determinism, Method, RunContext
from harness.errors import DataError
from methods.prng_learning.generators import Generator, full_period_pairs
from methods.prng_learning.params import SolverParams
from methods.prng_learning.task import SequenceInputs


def candidate_states(gen: Generator, first: int, max_candidates: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, c, state) of every full-period pair and every state whose output is `first`."""
    pairs = np.asarray(full_period_pairs(gen.m), dtype=np.int64)
    if gen.kind == "lcg":
        states = np.array([first], dtype=np.int64)
    else:
        every = np.arange(gen.m, dtype=np.int64)
        states = every[gen.output(every) == first]
    if len(pairs) * len(states) > max_candidates:
        raise DataError(f"the solver would enumerate {len(pairs) * len(states):,} (a, c, state) candidates at "
                        f"m = 2^{gen.k}", field="params.max_candidates", hint="Raise max_candidates or use a "
                        "smaller m: the brute-force cost is what a known-m attack on these outputs costs.")
    a = np.repeat(pairs[:, 0], len(states))
    c = np.repeat(pairs[:, 1], len(states))
    return a, c, np.tile(states, len(pairs))


def solver_guesses(gen: Generator, sequence: np.ndarray, max_candidates: int) -> tuple[np.ndarray, list[int]]:
    """Causal guesses for one sequence and the number of surviving candidates before each guess."""
    a, c, s = candidate_states(gen, int(sequence[0]), max_candidates)
    out = np.full(len(sequence), -1, dtype=np.int64)
    alive = [len(a)]
    for i in range(1, len(sequence)):
        s = (a * s + c) % gen.m
        outputs = gen.output(s)
        if len(outputs):
            values, counts = np.unique(outputs, return_counts=True)
            out[i] = values[np.argmax(counts)]
        keep = outputs == sequence[i]
        a, c, s = a[keep], c[keep], s[keep]
        alive.append(len(a))
    return out, alive


class ClassicalSolver(Method[SolverParams]):
    determinism = Determinism.EVERYWHERE  # integer arithmetic on the generator's state, scored by counting

    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        gen = inputs.source.gen
        rows, first_unique = [], []
        for row in inputs.numbers:
            guesses, alive = solver_guesses(gen, row, self.params.max_candidates)
            rows.append(guesses)
            unique = [i for i, n in enumerate(alive) if n <= 1]
            first_unique.append(unique[0] if unique else len(row))
        ctx.record("positions_to_unique", float(np.mean(first_unique)), "numbers", higher_is_better=False)
        return np.stack(rows)
