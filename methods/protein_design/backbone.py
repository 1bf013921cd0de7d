"""A protein backbone as ProteinMPNN reads it: N, CA, C, O coordinates per residue, a chain index per residue and,
where known, the native sequence that sequence recovery is measured against."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ALPHABET = "ACDEFGHIKLMNPQRSTVWYX"  # ProteinMPNN's order; X (unknown) is never designed
AMINO_ACIDS = ALPHABET[:20]
BACKBONE_ATOMS = ("N", "CA", "C", "O")


@dataclass(frozen=True)
class Backbone:
    name: str
    coords: np.ndarray         # (L, 4, 3) float: N, CA, C, O in angstrom
    chain: np.ndarray          # (L,) int: chain index, 0, 1, ...
    native: str | None = None  # the sequence recovery is measured against (None: unknown)
    residue_index: np.ndarray | None = None  # (L,) residue numbers (None: 0, 1, ...); a gap is a chain break

    @property
    def numbering(self) -> np.ndarray:
        return np.arange(self.length) if self.residue_index is None else self.residue_index

    def __post_init__(self) -> None:
        if self.coords.ndim != 3 or self.coords.shape[1:] != (4, 3):
            raise ValueError(f"backbone {self.name}: coords are (L, 4, 3), got {self.coords.shape}")
        if self.chain.shape != (self.length,):
            raise ValueError(f"backbone {self.name}: one chain index per residue, got {self.chain.shape}")
        if self.residue_index is not None and self.residue_index.shape != (self.length,):
            raise ValueError(f"backbone {self.name}: one residue number per residue, got {self.residue_index.shape}")
        if self.native is not None and len(self.native) != self.length:
            raise ValueError(f"backbone {self.name}: native sequence of {len(self.native)} residues for "
                             f"{self.length} positions")

    @property
    def length(self) -> int:
        return int(self.coords.shape[0])


def encode(sequence: str) -> np.ndarray:
    """Letters to ProteinMPNN's token ids; any letter outside the 20 amino acids becomes X."""
    return np.array([ALPHABET.index(a) if a in AMINO_ACIDS else 20 for a in sequence.upper()], dtype=np.int64)


def decode(tokens: np.ndarray) -> str:
    return "".join(ALPHABET[int(t)] for t in tokens)
