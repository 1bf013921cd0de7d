"""The 2D HP lattice model (Lau and Dill, 1989), where inverse folding is exact: every self-avoiding walk of
n <= 14 residues on the square lattice is enumerated, each H-H contact between non-neighbours in the chain
scores -1, and a sequence *designs* a structure when that structure is its unique ground state. A structure's
designability is the number of the 2^n H/P sequences that design it (Li, Helling, Tang and Wingreen, Science
1996). Walks are enumerated up to rotation and reflection; walks that share a contact map share every energy,
so they are grouped, and a structure shared with another walk can never be a unique ground state."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MAX_LENGTH = 14
STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def walks(n: int) -> np.ndarray:
    """(count, n, 2) lattice coordinates of every self-avoiding walk of n residues whose first step is +x and
    whose first step off the x axis is +y (one walk per rotation/reflection class)."""
    if not 2 <= n <= MAX_LENGTH:
        raise ValueError(f"HP lattice chains have 2..{MAX_LENGTH} residues, got {n}")
    found: list[list[tuple[int, int]]] = []
    path = [(0, 0), (1, 0)]
    occupied = set(path)

    def extend(turned: bool) -> None:
        if len(path) == n:
            found.append(list(path))
            return
        x, y = path[-1]
        for dx, dy in STEPS:
            if not turned and dy < 0:
                continue
            step = (x + dx, y + dy)
            if step in occupied:
                continue
            path.append(step)
            occupied.add(step)
            extend(turned or dy != 0)
            occupied.remove(path.pop())

    extend(False)
    return np.asarray(found, dtype=np.int64)


def contact_pairs(n: int) -> list[tuple[int, int]]:
    """The residue pairs that can touch on the square lattice: j - i odd and at least 3."""
    return [(i, j) for i in range(n) for j in range(i + 3, n) if (j - i) % 2]


@dataclass(frozen=True)
class Lattice:
    """Every contact map of n-residue walks, once, with how many walks have it."""

    n: int
    pairs: tuple[tuple[int, int], ...]
    maps: np.ndarray          # (U, P) bool: the map's contacts
    multiplicity: np.ndarray  # (U,) walks with that map
    walk_of_map: np.ndarray   # (U,) index of one walk with the map
    coords: np.ndarray        # (count, n, 2)

    def energies(self, sequences: np.ndarray) -> np.ndarray:
        """(S, U) energy of each H(1)/P(0) sequence in each contact map: minus its H-H contacts."""
        hh = np.stack([sequences[:, i] * sequences[:, j] for i, j in self.pairs], axis=1).astype(np.float32)
        return -(hh @ self.maps.T.astype(np.float32))

    def fold_probability(self, sequences: np.ndarray, target: int, temperature: float) -> np.ndarray:
        """(S,) Boltzmann probability of the target walk (map `target`, multiplicity 1) over every walk."""
        energy = self.energies(sequences).astype(np.float64)
        shifted = -(energy - energy.min(axis=1, keepdims=True)) / temperature
        weights = self.multiplicity[None, :] * np.exp(shifted)
        return np.exp(shifted[:, target]) / weights.sum(axis=1)

    def designs(self, sequences: np.ndarray, target: int) -> np.ndarray:
        """(S,) bool: the target is the sequence's unique ground state."""
        energy = self.energies(sequences)
        others = np.delete(energy, target, axis=1).min(axis=1)
        return (energy[:, target] < others) & (self.multiplicity[target] == 1)


@lru_cache(maxsize=4)
def lattice(n: int) -> Lattice:
    coords = walks(n)
    pairs = contact_pairs(n)
    i, j = np.array(pairs).T
    touching = np.abs(coords[:, i] - coords[:, j]).sum(axis=2) == 1
    maps, first, multiplicity = np.unique(touching, axis=0, return_index=True, return_counts=True)
    return Lattice(n, tuple(pairs), maps, multiplicity, first, coords)


def all_sequences(n: int) -> np.ndarray:
    """(2^n, n) every H(1)/P(0) sequence."""
    return ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.int64)


@lru_cache(maxsize=4)
def designability(n: int) -> np.ndarray:
    """(U,) exact number of sequences whose unique ground state is each map (0 for shared maps)."""
    grid = lattice(n)
    counts = np.zeros(len(grid.multiplicity), dtype=np.int64)
    for chunk in np.array_split(all_sequences(n), max(1, 2 ** n // 2048)):
        energy = grid.energies(chunk)
        order = np.argsort(energy, axis=1)
        best, second = order[:, 0], order[:, 1]
        rows = np.arange(len(chunk))
        unique = (energy[rows, best] < energy[rows, second]) & (grid.multiplicity[best] == 1)
        counts += np.bincount(best[unique], minlength=len(counts))
    return counts
