"""The datasets: `generated` (each seed draws held-out sequences from the unseen (a, c) pairs of one generator at
m = 2^k) and `byo` (your own sequences from a JSONL file). Both describe the split the decoder trains on: the
training pairs are every full-period pair not held out."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.errors import DataError
from harness.json_lines import json_object
from harness.loader_arguments import whole_number
from methods.prng_learning.generators import Generator, PairSplit, parse_generator, split_pairs


@dataclass(frozen=True)
class PrngSource:
    """What a loader returns: the generator (its spec and m = 2^k), the pair split, the sequence length, and
    for `byo` the user's sequences (None for generated sets: each seed draws its own)."""

    k: int
    generator: str
    seq_len: int
    per_pair: int
    test_fraction: float
    split_seed: int
    max_test_pairs: int
    recorded: np.ndarray | None = None
    recorded_ids: tuple[str, ...] = ()
    recorded_pairs: np.ndarray | None = None

    @property
    def gen(self) -> Generator:
        return parse_generator(self.generator, self.k)

    @property
    def split(self) -> PairSplit:
        return split_pairs(1 << self.k, self.test_fraction, self.split_seed, self.max_test_pairs)

    def sequences(self, seed: int) -> tuple[tuple[str, ...], np.ndarray]:
        """The seed's held-out sequences (ids and a (n, seq_len) array): `per_pair` per unseen pair, each from
        a random seed state, or the user's sequences."""
        if self.recorded is not None:
            return self.recorded_ids, self.recorded
        test = self.pairs()
        assert test is not None
        rng = np.random.default_rng([seed, 0x9C6])
        ids = tuple(f"a{a}-c{c}-{i % self.per_pair}" for i, (a, c) in enumerate(test))
        return ids, self.gen.sequences(test, self.seq_len, rng)

    def pairs(self) -> np.ndarray | None:
        """The (a, c) of each sequence, in order (what only the oracle reads); None for a user's sequences
        without them."""
        if self.recorded is not None:
            return self.recorded_pairs
        return np.repeat(np.asarray(self.split.test, dtype=np.int64), self.per_pair, axis=0)


def _source(k: int, generator: str, seq_len: int, per_pair: int, test_fraction: float, split_seed: int,
            max_test_pairs: int) -> PrngSource:
    k = whole_number(k, "args.k", minimum=3)
    if k > 24:
        raise DataError(f"k = {k} is beyond what the family's generators and models are sized for",
                        field="args.k", hint="Use k <= 24 (m <= 2^24).")
    try:
        parse_generator(str(generator), k)
    except ValueError as exc:
        raise DataError(str(exc), field="args.generator",
                        hint="Write lcg, tlcg:BITS, rs:BITS:CONTROL, rr:BITS:CONTROL, xsh_rr:BITS:CONTROL, "
                             "xsh_rs:BITS:CONTROL or xsl_rr:CONTROL.") from None
    if not 0.0 < float(test_fraction) < 1.0:
        raise DataError(f"test_fraction must lie in (0, 1), got {test_fraction}", field="args.test_fraction")
    return PrngSource(k, str(generator), whole_number(seq_len, "args.seq_len", minimum=4),
                      whole_number(per_pair, "args.per_pair"), float(test_fraction),
                      whole_number(split_seed, "args.split_seed", minimum=0),
                      whole_number(max_test_pairs, "args.max_test_pairs"))


def generated(k: int = 6, generator: str = "lcg", seq_len: int = 32, per_pair: int = 2, test_fraction: float = 0.125,
              split_seed: int = 97, max_test_pairs: int = 256) -> PrngSource:
    """Held-out sequences of `generator` at m = 2^k: `per_pair` per unseen full-period (a, c) pair (a fraction
    `test_fraction` of them, at most `max_test_pairs`, drawn with `split_seed`), `seq_len` numbers each."""
    return _source(k, generator, seq_len, per_pair, test_fraction, split_seed, max_test_pairs)


BYO_KEYS = frozenset({"id", "numbers", "a", "c"})


def byo(path: str | Path, k: int, generator: str = "lcg", test_fraction: float = 0.125, split_seed: int = 97,
        max_test_pairs: int = 256) -> PrngSource:
    """Your sequences from a JSONL file, one per line: {"id": "s1", "numbers": [3, 14, ...]} with optional "a" and
    "c" (checked to be a held-out full-period pair, so the decoder has not trained on them). Every sequence has the
    same length; every number is an output of `generator` at m = 2^k (0 <= x < 2^output bits)."""
    source = _source(k, generator, 4, 1, test_fraction, split_seed, max_test_pairs)
    file = Path(path)
    if not file.is_file():
        raise DataError("no such file", file=file, hint="Give the JSONL of sequences as args.path.")
    vocab, held_out = source.gen.vocab, set(source.split.test)
    ids: list[str] = []
    rows: list[list[int]] = []
    pairs: list[tuple[int, int]] = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json_object(line, file, number, BYO_KEYS)
        numbers = record.get("numbers")
        if not isinstance(numbers, list) or len(numbers) < 4:
            raise DataError("'numbers' must be a list of at least 4 integers", file=file, line=number,
                            field="numbers")
        bad = [x for x in numbers if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < vocab]
        if bad:
            raise DataError(f"{bad[0]!r} is not an output of {generator} at m = 2^{k} (integers 0..{vocab - 1})",
                            file=file, line=number, field="numbers", hint="Check args.k and args.generator.")
        if rows and len(numbers) != len(rows[0]):
            raise DataError(f"{len(numbers)} numbers where the first sequence has {len(rows[0])}", file=file,
                            line=number, field="numbers", hint="Give every sequence the same length.")
        if ("a" in record) != ("c" in record):
            raise DataError("give both 'a' and 'c' or neither", file=file, line=number,
                            field="c" if "a" in record else "a")
        if "a" in record and (record["a"], record["c"]) not in held_out:
            raise DataError(f"(a, c) = ({record['a']}, {record['c']}) is not a held-out full-period pair of this "
                            "split: the decoder may have trained on it", file=file, line=number, field="a",
                            hint="Leave a and c out, or change args.split_seed / test_fraction.")
        ids.append(str(record.get("id", f"line{number}")))
        rows.append(numbers)
        if "a" in record:
            pairs.append((record["a"], record["c"]))
    if not rows:
        raise DataError("the file holds no sequence", file=file, hint="One JSON object per line.")
    if len(set(ids)) != len(ids):
        raise DataError("sequence ids repeat", file=file, field="id", hint="Give each line its own id.")
    known = np.asarray(pairs, dtype=np.int64) if len(pairs) == len(rows) else None
    return PrngSource(source.k, source.generator, len(rows[0]), 1, source.test_fraction, source.split_seed,
                      source.max_test_pairs, np.asarray(rows, dtype=np.int64), tuple(ids), known)
