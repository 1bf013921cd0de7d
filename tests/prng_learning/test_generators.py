"""The generators against their definitions: Hull-Dobell full periods, each bit operation against a
bit-string computation written independently, truncation, and disjoint train / test pairs."""
from __future__ import annotations

import numpy as np
import pytest

from methods.prng_learning.generators import (
    Generator,
    full_period_pairs,
    hull_dobell,
    parse_generator,
    period,
    rotate_right,
    split_pairs,
    states,
)


def bits(value: int, width: int) -> str:
    return format(value, f"0{width}b")


def rotr_str(value: int, amount: int, width: int) -> int:
    """Rotate right on the bit string: the last `amount` characters move to the front."""
    text = bits(value, width)
    amount %= width
    return int(text[-amount:] + text[:-amount], 2) if amount else value


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_hull_dobell_is_exactly_the_full_period_condition(k: int) -> None:
    m = 1 << k
    for a in range(m):
        for c in range(m):
            assert (period(a, c, m) == m) == hull_dobell(a, c, m), (a, c, m)


def test_full_period_pairs_have_period_m() -> None:
    m = 64
    pairs = full_period_pairs(m)
    assert len(pairs) == 15 * 31  # a in {5, 9, ..., 61}, c odd in [3, 63]
    assert all(period(a, c, m, start=s) == m for a, c in pairs[::17] for s in (0, 11))


def test_states_follow_the_recurrence() -> None:
    out = states(np.array([5, 13]), np.array([3, 7]), 32, 6, np.array([1, 30]))
    for row, (a, c, s) in zip(out, [(5, 3, 1), (13, 7, 30)], strict=True):
        expected = []
        for _ in range(6):
            s = (a * s + c) % 32
            expected.append(s)
        assert row.tolist() == expected


def test_rotate_right_matches_bit_strings() -> None:
    for width in (1, 3, 4, 8):
        values = np.arange(1 << width)
        for amount in range(2 * width):
            expected = [rotr_str(int(v), amount, width) for v in values]
            assert rotate_right(values, np.full_like(values, amount), width).tolist() == expected


@pytest.mark.parametrize("keep", [1, 2, 3, 8])
def test_truncation_keeps_the_top_bits(keep: int) -> None:
    gen = Generator("tlcg", 8, bits=keep)
    s = np.arange(256)
    assert gen.output(s).tolist() == [int(bits(int(v), 8)[:keep], 2) for v in s]
    assert gen.vocab == 1 << keep


def test_one_bit_truncation_is_the_top_bit() -> None:
    gen = parse_generator("tlcg:1", 6)
    assert gen.output(np.array([0, 31, 32, 63])).tolist() == [0, 0, 1, 1]


def test_xsl_rr_against_the_bit_string_definition() -> None:
    k, control = 8, 3
    gen = Generator("xsl_rr", k, control=control)
    for s in range(1 << k):
        text = bits(s, k)
        high, low = int(text[:4], 2), int(text[4:], 2)
        assert gen.output(np.array([s]))[0] == rotr_str(high ^ low, int(text[:control], 2), 4), s


def test_xsh_rr_against_a_scalar_definition() -> None:
    k, keep, control = 10, 5, 2
    gen = Generator("xsh_rr", k, bits=keep, control=control)
    for s in range(1 << k):
        xored = s ^ (s >> ((keep + control) // 2))
        window = int(bits(xored, k)[-(keep - control) - keep:][:keep], 2)  # bits keep-control .. 2*keep-control-1
        assert gen.output(np.array([s]))[0] == rotr_str(window, s >> (k - control), keep), s


def test_xsh_rs_against_a_scalar_definition() -> None:
    k, keep, control = 8, 4, 1
    gen = Generator("xsh_rs", k, bits=keep, control=control)
    d = keep - control - 2 ** control + 1
    for s in range(1 << k):
        top = int(bits(s, k)[:control], 2)
        xored = bits(s ^ (s >> d), k)
        low = d + top  # drop the low `low` bits, keep the next `keep`
        assert gen.output(np.array([s]))[0] == int(xored[k - low - keep:k - low], 2), s


def test_rs_and_rr_controls() -> None:
    rs = Generator("rs", 8, bits=3, control=2)
    rr = Generator("rr", 8, bits=4, control=2)
    for s in range(256):
        text = bits(s, 8)
        top = int(text[:2], 2)
        start = 2 + top  # right below the control bits, sliding down by the control value
        assert rs.output(np.array([s]))[0] == int(text[start:start + 3], 2), s
        assert rr.output(np.array([s]))[0] == rotr_str(int(text[2:6], 2), top, 4), s


def test_output_ranges_and_vocab() -> None:
    s = np.arange(1 << 10)
    for spec in ("lcg", "tlcg:3", "rs:4:2", "rr:4:2", "xsh_rr:4:2", "xsh_rs:4:1", "xsl_rr:2"):
        gen = parse_generator(spec, 10)
        out = gen.output(s)
        assert out.min() >= 0 and out.max() < gen.vocab
        assert len(np.unique(out)) == gen.vocab  # every output value occurs over a full period


@pytest.mark.parametrize("spec", ["tlcg:0", "tlcg:9", "rr:3:2", "xsh_rs:3:2", "xsl_rr:5", "pcg"])
def test_invalid_generators_are_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_generator(spec, 8)


def test_train_and_test_pairs_are_disjoint_and_cover_every_pair() -> None:
    split = split_pairs(256, 0.125, seed=97)
    assert not set(split.train) & set(split.test)
    assert set(split.train) | set(split.test) == set(full_period_pairs(256))
    assert len(split.test) == round(0.125 * len(full_period_pairs(256)))
    assert split_pairs(256, 0.125, seed=97) == split  # the split's own seed, not the run's
    capped = split_pairs(256, 0.125, seed=97, max_test=50)
    assert len(capped.test) == 50 and not set(capped.train) & set(capped.test)


def test_sequences_come_from_their_pairs() -> None:
    gen = Generator("lcg", 6)
    seqs = gen.sequences(np.array([[5, 3], [9, 11]]), 10, np.random.default_rng(0))
    for row, (a, c) in zip(seqs, [(5, 3), (9, 11)], strict=True):
        assert all((a * x + c) % 64 == y for x, y in zip(row[:-1], row[1:], strict=True))


def test_the_top_bit_flips_every_half_period_and_no_sooner() -> None:
    # the premise of pre_half_accuracy / post_half_accuracy: from position m/2 on copy-and-flip is exact
    gen = parse_generator("tlcg:1", 6)
    pairs = np.asarray(split_pairs(64, 0.125, 97).train, dtype=np.int64)
    seqs = gen.sequences(pairs, 64, np.random.default_rng(0))
    assert (seqs[:, 32:] == 1 - seqs[:, :32]).all()
    for lag in range(1, 32):  # no shorter lag is a copy or a flip for every pair
        same = (seqs[:, lag:] == seqs[:, :-lag]).all(axis=1)
        flipped = (seqs[:, lag:] != seqs[:, :-lag]).all(axis=1)
        assert not same.all() and not flipped.all()
