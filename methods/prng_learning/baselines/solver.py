"""The classical attacker that must infer (a, c) from the context: it knows m, the output map and that the pair is
full-period (not the pair, not the seed), keeps every (a, c) and hidden state consistent with the numbers seen so
far and guesses the survivors' majority next output, so its per-position accuracy is the information-theoretic
reference the decoder's curve is read against. For a plain LCG the state is the output, and
x_{t+1} - x_t = a (x_t - x_{t-1}) (mod m) for every t; a difference with 2-adic valuation v fixes a only modulo
m / 2^v, and the enumeration keeps exactly the a's consistent with every pair seen. For a full-period pair the
difference x_1 - x_0 = (a - 1) x_0 + c is always odd (a = 1 mod 4, c odd), so x_0, x_1, x_2 fix a, then
c = x_1 - a x_0: exact from position 3. For truncated and permuted outputs the hidden low bits multiply the
candidates; they are enumerated up to `max_candidates` (an error beyond: this is what "perfect" costs), and the
outputs can leave several candidates agreeing on every output seen, so it may stay below 1 for a while."""
from __future__ import annotations

import numpy as np

from harness import Determinism, Method, RunContext
from harness.errors import DataError
from methods.prng_learning.generators import Generator, full_period_pairs
from methods.prng_learning.params import SolverParams
from methods.prng_learning.task import SequenceInputs


def candidate_states(gen: Generator, first: int, max_candidates: int,
                     pairs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, c, state) of every pair (default: every full-period pair) and every state whose output is `first`."""
    pairs = np.asarray(full_period_pairs(gen.m) if pairs is None else pairs, dtype=np.int64).reshape(-1, 2)
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


def solver_guesses(gen: Generator, sequence: np.ndarray, max_candidates: int,
                   pairs: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """Causal guesses for one sequence and the number of surviving candidates before each guess (`pairs`: the
    (a, c) it may consider; default every full-period pair)."""
    a, c, s = candidate_states(gen, int(sequence[0]), max_candidates, pairs)
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
