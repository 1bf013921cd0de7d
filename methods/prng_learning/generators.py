"""The pseudorandom generators of Tao & Barkeshli (arXiv 2510.26792), re-implemented from the semantics of the
released `learn-pcg` repository's `utils/prng_data.py` (read, not copied): the state is a full-period LCG over
m = 2^k, and each generator maps a state to one output number.

  lcg      s itself (k bits)
  tlcg     the top `bits` bits of s:  (s >> (k - bits)) & (2^bits - 1)
  rs       random shift: the top `control` bits r pick the window  (s >> (k - bits - control - r)) & mask
  rr       random rotation: the `bits` bits below the control bits, rotated right by the top `control` bits
  xsh_rr   ((s ^ (s >> floor((bits + control) / 2))) >> (bits - control)) & mask, rotated right by s >> (k - control)
  xsh_rs   (s ^ (s >> d)) >> (d + (s >> (k - control))) & mask,  d = bits - control - 2^control + 1
  xsl_rr   v = (s ^ (s >> k/2)) & (2^{k/2} - 1), rotated right (width k/2) by s >> (k - control)

Every function here is vectorised over a batch of sequences (numpy int64; k <= 30) and torch-free.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GENERATORS = ("lcg", "tlcg", "rs", "rr", "xsh_rr", "xsh_rs", "xsl_rr")


def hull_dobell(a: int, c: int, m: int) -> bool:
    """The Hull-Dobell condition for a full period at m = 2^k (k >= 2): c odd and a = 1 (mod 4)."""
    return c % 2 == 1 and a % 4 == 1


def period(a: int, c: int, m: int, start: int = 0) -> int:
    """The length of the cycle the LCG enters from `start`, by iteration (brute force, for tests)."""
    seen: dict[int, int] = {}
    state, index = start, 0
    while state not in seen:
        seen[state] = index
        state = (a * state + c) % m
        index += 1
    return index - seen[state]


def full_period_pairs(m: int) -> list[tuple[int, int]]:
    """Every (a, c) with a full period over m = 2^k in the ranges `learn-pcg` draws from: a = 4j + 1 with
    j >= 1 (a in [5, m)), c odd in [3, m)."""
    return [(a, c) for a in range(5, m, 4) for c in range(3, m, 2)]


@dataclass(frozen=True)
class PairSplit:
    """Disjoint training and held-out (a, c) pairs over one modulus: held-out sequences use unseen pairs."""

    m: int
    train: tuple[tuple[int, int], ...]
    test: tuple[tuple[int, int], ...]


def split_pairs(m: int, test_fraction: float, seed: int, max_test: int | None = None) -> PairSplit:
    """A random split of the full-period pairs (the split's own seed: the same for every training seed)."""
    pairs = full_period_pairs(m)
    if len(pairs) < 2:
        raise ValueError(f"m = {m} has {len(pairs)} full-period pair(s); need m >= 8")
    order = np.random.default_rng(seed).permutation(len(pairs))
    n_test = min(len(pairs) - 1, max(1, round(test_fraction * len(pairs))))
    if max_test is not None:
        n_test = min(n_test, max_test)
    test = tuple(pairs[i] for i in sorted(order[:n_test]))
    train = tuple(pairs[i] for i in sorted(order[n_test:]))
    return PairSplit(m, train, test)


def states(a: np.ndarray, c: np.ndarray, m: int, length: int, start: np.ndarray) -> np.ndarray:
    """(batch, length) LCG states s_1 .. s_length from s_0 = start (the seed itself is never output)."""
    a, c, s = (np.asarray(v, dtype=np.int64) for v in (a, c, start))
    out = np.empty((s.shape[0], length), dtype=np.int64)
    for i in range(length):
        s = (a * s + c) % m
        out[:, i] = s
    return out


def rotate_right(value: np.ndarray, amount: np.ndarray, width: int) -> np.ndarray:
    """Rotate `width`-bit values right by `amount` (taken mod width)."""
    value = np.asarray(value, dtype=np.int64)
    amount = np.asarray(amount, dtype=np.int64) % width
    mask = (1 << width) - 1
    return ((value >> amount) | (value << ((width - amount) % width))) & mask


@dataclass(frozen=True)
class Generator:
    """One output map over the states of m = 2^k: `kind` in GENERATORS, `bits` output bits (tlcg, rs, rr,
    xsh_rr, xsh_rs; lcg outputs k bits, xsl_rr k/2), `control` control bits (rs, rr, xsh_*, xsl_rr)."""

    kind: str
    k: int
    bits: int = 0
    control: int = 0

    def __post_init__(self) -> None:
        k, b, r = self.k, self.bits, self.control
        if self.kind not in GENERATORS:
            raise ValueError(f"unknown generator {self.kind!r}; known: {', '.join(GENERATORS)}")
        if not 3 <= k <= 30:
            raise ValueError(f"state bits k = {k} outside 3..30")
        needs = {
            "tlcg": (0 < b <= k, "0 < bits <= k"),
            "rs": (b > 0 and r > 0 and k >= b + r + 2**r - 1, "k >= bits + control + 2^control - 1"),
            "rr": (r > 0 and b >= 2**r and k >= b + r, "bits >= 2^control and k >= bits + control"),
            "xsh_rr": (r > 0 and b > 0 and k > b + r, "k > bits + control"),
            "xsh_rs": (r > 0 and b - r - 2**r + 1 > 0 and k >= 2 * b - 2 * r,
                       "d = bits - control - 2^control + 1 > 0 and k >= bits + d + 2^control - 1"),
            "xsl_rr": (r > 0 and k % 2 == 0 and k >= 2 * r, "k even and k >= 2 * control"),
        }
        ok, rule = needs.get(self.kind, (True, ""))
        if not ok:
            raise ValueError(f"{self.kind} with k={k}, bits={b}, control={r} is invalid: needs {rule}")

    @property
    def m(self) -> int:
        return 1 << self.k

    @property
    def out_bits(self) -> int:
        if self.kind == "lcg":
            return self.k
        if self.kind == "xsl_rr":
            return self.k // 2
        return self.bits

    @property
    def vocab(self) -> int:
        """The number of distinct outputs: 2^out_bits."""
        return 1 << self.out_bits

    @property
    def name(self) -> str:
        extra = {"lcg": "", "xsl_rr": f"-c{self.control}", "tlcg": f"-{self.bits}b"}.get(
            self.kind, f"-{self.bits}b-c{self.control}")
        return f"{self.kind}{extra}@2^{self.k}"

    def output(self, s: np.ndarray) -> np.ndarray:
        """The outputs of states `s` (any shape)."""
        s = np.asarray(s, dtype=np.int64)
        k, b, r = self.k, self.bits, self.control
        mask = (1 << b) - 1
        if self.kind == "lcg":
            return s
        if self.kind == "tlcg":
            return (s >> (k - b)) & mask
        top = s >> (k - r)
        if self.kind == "rs":
            return (s >> (k - b - r - top)) & mask
        if self.kind == "rr":
            return rotate_right((s >> (k - r - b)) & mask, top, b)
        if self.kind == "xsh_rr":
            mixed = ((s ^ (s >> ((b + r) // 2))) >> (b - r)) & mask
            return rotate_right(mixed, top, b)
        if self.kind == "xsh_rs":
            d = b - r - 2**r + 1
            return ((s ^ (s >> d)) >> (d + top)) & mask
        half = k // 2
        return rotate_right((s ^ (s >> half)) & ((1 << half) - 1), top, half)

    def sequences(self, pairs: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
        """(len(pairs), length) outputs, one sequence per (a, c) row of `pairs`, each from a random seed state."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        start = rng.integers(0, self.m, size=pairs.shape[0])
        return self.output(states(pairs[:, 0], pairs[:, 1], self.m, length, start))


def parse_generator(spec: str, k: int) -> Generator:
    """'lcg', 'tlcg:1' (bits), 'rs:4:2' / 'rr:4:2' / 'xsh_rr:4:2' / 'xsh_rs:5:1' (bits:control), 'xsl_rr:2'
    (control) at m = 2^k."""
    kind, *numbers = spec.split(":")
    try:
        values = [int(v) for v in numbers]
    except ValueError:
        raise ValueError(f"generator {spec!r}: the numbers after ':' must be integers") from None
    if kind == "xsl_rr":
        return Generator(kind, k, control=values[0] if values else 1)
    if kind == "tlcg":
        return Generator(kind, k, bits=values[0] if values else 1)
    if kind == "lcg":
        return Generator(kind, k)
    if len(values) != 2:
        raise ValueError(f"generator {spec!r}: {kind} takes bits:control")
    return Generator(kind, k, bits=values[0], control=values[1])
