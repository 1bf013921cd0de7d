"""The references on hand-computed fixtures: the classical solver infers a plain LCG's (a, c) from three outputs
and is exact from the first position its candidates are unique; the oracle that knows (a, c) is exact at once;
the n-gram table is counted on training sequences only, backs off to shorter contexts, and wins where the
training data's local statistics decide the next output (a short-period generator)."""
from __future__ import annotations

import numpy as np
import pytest

from methods.prng_learning.baselines.ngram import NgramTable, contexts
from methods.prng_learning.baselines.solver import solver_guesses
from methods.prng_learning.data import generated
from methods.prng_learning.generators import Generator, parse_generator
from methods.prng_learning.params import ModelConfig
from methods.prng_learning.stream import training_batches

# By hand: m = 16, a = 5, c = 3, s_0 = 0 (never output): s_i = 5 s_{i-1} + 3 mod 16.
HAND = np.array([3, 2, 13, 4, 7, 6, 1, 8, 11, 10, 5, 12, 15, 14, 9, 0])


def lcg_sequence(a: int, c: int, m: int, start: int, length: int) -> np.ndarray:
    out, s = [], start
    for _ in range(length):
        s = (a * s + c) % m
        out.append(s)
    return np.array(out)


def test_the_hand_sequence_is_the_generator() -> None:
    assert (lcg_sequence(5, 3, 16, 0, 16) == HAND).all()


def test_solver_infers_a_and_c_from_three_hand_outputs() -> None:
    # x_1 - x_0 = -1 = 15 (mod 16), odd: 15 a = x_2 - x_1 = 11 gives a = 5, then c = x_1 - 5 x_0 = -13 = 3,
    # so after 3, 2, 13 the next is 5 * 13 + 3 = 68 = 4 (mod 16)
    guesses, alive = solver_guesses(Generator("lcg", 4), HAND, 10**6)
    assert alive[1] > 1 and alive[2] == 1  # x_0, x_1 leave one c per a; x_2 leaves one (a, c)
    assert guesses[3] == 4
    assert (guesses[3:] == HAND[3:]).all()


def test_solver_accuracy_is_one_from_the_first_position_its_pair_is_determined() -> None:
    rng = np.random.default_rng(1)
    for spec, k in (("lcg", 8), ("tlcg:2", 6), ("xsl_rr:2", 6), ("xsh_rr:3:1", 6), ("rs:2:1", 6), ("rr:2:1", 6),
                    ("xsh_rs:3:1", 6)):
        gen = parse_generator(spec, k)
        for a, c in ((21, 13), (45, 7), (9, 31)):
            seq = gen.sequences(np.array([[a, c]]), 40, rng)[0]
            guesses, alive = solver_guesses(gen, seq, 10**7)
            assert alive[-1] >= 1  # the true (a, c, state) always survives
            unique = [i for i, n in enumerate(alive) if n == 1]
            assert unique, spec
            assert (guesses[unique[0] + 1:] == seq[unique[0] + 1:]).all(), spec
            if spec == "lcg":  # full outputs: x_1 - x_0 = (a - 1) x_0 + c is odd, so x_0, x_1, x_2 fix (a, c)
                assert unique[0] == 2


def test_solver_refuses_a_too_large_enumeration() -> None:
    from harness.errors import DataError

    gen = Generator("tlcg", 10, bits=1)
    with pytest.raises(DataError, match="candidates"):
        solver_guesses(gen, np.array([0, 1, 0, 1]), 1000)


def test_the_oracle_guess_is_exact_from_position_one_on_the_hand_sequence() -> None:
    guesses, _ = solver_guesses(Generator("lcg", 4), HAND, 16, np.array([[5, 3]]))
    assert guesses[0] == -1 and (guesses[1:] == HAND[1:]).all()


def test_contexts_by_hand() -> None:
    codes = contexts(np.array([[1, 2, 3, 0]]), 2, 4)
    assert codes.tolist() == [[-1, -1, 1 * 4 + 2, 2 * 4 + 3]]  # position 2 sees (1, 2), position 3 sees (2, 3)


def test_ngram_table_backs_off_by_hand() -> None:
    train = np.array([[1, 2, 3, 1, 2, 0], [3, 2, 1, 1, 1, 1]])
    table = NgramTable.fit([train], order=2, vocab=4)
    # by hand: after (1) come 2, 2, 1, 1, 1 -> 1; after (1, 2) come 3, 0 -> the tie to the smaller, 0;
    # after (2, 3) comes 1; (3, 3) never occurs, and after (3) come 1, 2 -> 1; x_0 has no guess
    assert table.guesses(np.array([[1, 2, 3, 3, 2]])).tolist() == [[-1, 1, 0, 1, 1]]
    # 0 is never followed in training: the unigram successor, 1 (five of the ten successors)
    assert table.guesses(np.array([[0, 0]])).tolist() == [[-1, 1]]


def test_ngram_wins_on_a_short_period_generator() -> None:
    # period 5, every training sequence a phase of the same cycle: the test sequence (a phase never trained on as
    # a whole) is predicted exactly from position 1 (chance 1/5)
    cycle = np.array([4, 0, 3, 1, 2])
    train = np.stack([np.roll(np.tile(cycle, 6), -p)[:20] for p in (0, 1, 2)])
    test = np.roll(np.tile(cycle, 6), -3)[None, :20]
    guesses = NgramTable.fit([train], order=3, vocab=5).guesses(test)
    assert (guesses[:, 1:] == test[:, 1:]).all()


def test_ngram_never_learns_from_the_test_sequence() -> None:
    # a context met only in the test sequence stays unknown however often it repeats there: no in-context fit
    train = np.array([[0, 1, 0, 1, 0, 1, 0, 1]])
    table = NgramTable.fit([train], order=1, vocab=4)
    test = np.array([[2, 3, 2, 3, 2, 3, 2, 3]])
    guesses = table.guesses(test)
    assert (guesses[:, 1:] != test[:, 1:]).all()  # an in-context lookup would be right from position 3


def test_the_ngram_stream_is_the_decoders_and_holds_training_pairs_only() -> None:
    source = generated(k=5, seq_len=12)
    config = ModelConfig(k=5, seq_len=12, steps=20, batch=16)
    first = np.concatenate(list(training_batches(config, 3)))
    assert np.array_equal(first, np.concatenate(list(training_batches(config, 3))))  # the decoder's, by seed
    # full LCG outputs: (a, c) of each row from x_0, x_1, x_2; every one a training pair, never a held-out one
    a = np.array([next(a for a in range(5, 32, 4) if (a * (x1 - x0) - (x2 - x1)) % 32 == 0)
                  for x0, x1, x2 in first[:, :3]])
    c = (first[:, 1] - a * first[:, 0]) % 32
    pairs = set(zip(a.tolist(), c.tolist(), strict=True))
    assert pairs <= set(source.split.train) and not pairs & set(source.split.test)
