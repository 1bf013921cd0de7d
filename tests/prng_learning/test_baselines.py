"""The references: the classical solver recovers a plain LCG from three outputs and is exact on every generator
once its candidates are unique; the in-context n-gram lookup is causal and perfect after a full-output LCG
revisits a number; chance is near 2^-bits."""
from __future__ import annotations

import numpy as np
import pytest

from methods.prng_learning.baselines.ngram import ngram_guesses
from methods.prng_learning.baselines.solver import solver_guesses
from methods.prng_learning.generators import Generator, parse_generator


def lcg_sequence(a: int, c: int, m: int, start: int, length: int) -> np.ndarray:
    out, s = [], start
    for _ in range(length):
        s = (a * s + c) % m
        out.append(s)
    return np.array(out)


def test_solver_pins_a_plain_lcg_from_three_outputs_when_the_difference_is_odd() -> None:
    # x1 - x0 odd: a(x1 - x0) = x2 - x1 (mod m) fixes a, then c; every later guess is right
    m, a, c = 256, 45, 123
    seq = lcg_sequence(a, c, m, 7, 20)
    assert (seq[1] - seq[0]) % 2 == 1
    guesses, alive = solver_guesses(Generator("lcg", 8), seq, 10**7)
    assert alive[2] == 1  # after x0, x1, x2 one (a, c) is left
    assert (guesses[3:] == seq[3:]).all()


def test_solver_is_exact_once_its_candidates_agree_on_every_generator() -> None:
    rng = np.random.default_rng(0)
    for spec in ("tlcg:2", "xsl_rr:2", "xsh_rr:3:1", "rs:2:1", "rr:2:1", "xsh_rs:3:1"):
        gen = parse_generator(spec, 6)
        seq = gen.sequences(np.array([[21, 13]]), 24, rng)[0]
        guesses, alive = solver_guesses(gen, seq, 10**7)
        assert alive[-1] >= 1  # the true (a, c, state) always survives
        unique = [i for i, n in enumerate(alive) if n == 1]
        assert unique, spec
        assert (guesses[unique[0] + 1:] == seq[unique[0] + 1:]).all(), spec


def test_solver_refuses_a_too_large_enumeration() -> None:
    from harness.errors import DataError

    gen = Generator("tlcg", 10, bits=1)
    with pytest.raises(DataError, match="candidates"):
        solver_guesses(gen, np.array([0, 1, 0, 1]), 1000)


def test_ngram_is_causal() -> None:
    seq = lcg_sequence(5, 3, 16, 0, 40)
    full = ngram_guesses(seq, 3)
    changed = seq.copy()
    changed[25:] = (changed[25:] + 1) % 16
    assert (ngram_guesses(changed, 3)[:26] == full[:26]).all()  # guess 25 uses x_0 .. x_24 only


def test_ngram_is_perfect_after_a_full_lcg_revisits_its_start() -> None:
    m = 16
    seq = lcg_sequence(5, 3, m, 0, 40)
    guesses = ngram_guesses(seq, 1)
    assert guesses[0] == -1
    assert (guesses[m + 1:] == seq[m + 1:]).all()  # period m: from x_{m+1} on the successor is known
    assert (guesses[1:m] != seq[1:m]).all()  # before, no number has been followed yet by a different one


def test_ngram_orders_back_off() -> None:
    seq = np.array([1, 2, 3, 1, 2, 3, 1, 2])
    assert ngram_guesses(seq, 2).tolist()[3:] == [1, 2, 3, 1, 2]  # x_3: the fallback, then the lookups
