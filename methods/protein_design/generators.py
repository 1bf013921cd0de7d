"""Generated ideal backbones with native-like sequences: an alpha helix, helical bundles (one helix per chain,
alternating up and down on a circle) and beta hairpins (two strands joined by a type I' turn). The sequences
follow the classic design patterns: heptads with hydrophobic a/d positions for helices, alternating polar and
apolar residues for strands and Asn-Gly for the turn. They favour what ProteinMPNN learned from the PDB.

A hairpin's two turn residues are not built: its strands are ideal and straight, antiparallel at 4.8 A (the
inter-strand CA distance of a sheet), and the residue numbering skips the turn, which the native sequence still
spells (Asn-Gly) but no position designs."""
from __future__ import annotations

import numpy as np

from methods.protein_design.backbone import Backbone
from methods.protein_design.geometry import HELIX, STRAND, centred_on_axis, chain_from_torsions

HEPTADS = ("LKELLKK", "LEELLKK", "IEKLLKE", "LKKLAEE")  # a..g with a and d hydrophobic
STRAND_PATTERN = "KVTVEV"
STRAND_SPACING = 4.8  # angstrom between paired strands
BUNDLE_RADIUS = 7.3  # angstrom: helix-axis distance of about 10 A between neighbours in a three-helix bundle


def heptad_sequence(length: int, variant: int) -> str:
    heptad = HEPTADS[variant % len(HEPTADS)]
    return (heptad * (length // 7 + 1))[:length]


def helix(length: int, variant: int = 0) -> Backbone:
    atoms = chain_from_torsions(np.tile(HELIX, (length, 1)))
    return Backbone(f"helix{length}_v{variant}", atoms, np.zeros(length, dtype=np.int64),
                    heptad_sequence(length, variant))


def bundle(helices: int, length: int, variant: int = 0) -> Backbone:
    """`helices` ideal helices as separate chains, axes parallel to z on a circle, neighbours antiparallel."""
    single = centred_on_axis(chain_from_torsions(np.tile(HELIX, (length, 1))))
    chains, sequences = [], []
    for k in range(helices):
        angle = 2 * np.pi * k / helices
        spin = np.array([[np.cos(angle), -np.sin(angle), 0.0], [np.sin(angle), np.cos(angle), 0.0], [0, 0, 1.0]])
        flip = np.diag([1.0, -1.0, -1.0]) if k % 2 else np.eye(3)
        offset = BUNDLE_RADIUS * np.array([np.cos(angle), np.sin(angle), 0.0])
        chains.append(single @ (spin @ flip).T + offset)
        sequences.append(heptad_sequence(length, variant + k))
    coords = np.concatenate(chains)
    chain = np.repeat(np.arange(helices), length)
    return Backbone(f"bundle{helices}x{length}_v{variant}", coords, chain, "".join(sequences))


def hairpin(strand: int, variant: int = 0) -> Backbone:
    """Two antiparallel ideal strands of `strand` residues, one chain numbered around a skipped two-residue turn."""
    single = centred_on_axis(chain_from_torsions(np.tile(STRAND, (strand, 1))))
    turned = single @ np.diag([-1.0, 1.0, -1.0]).T + np.array([STRAND_SPACING, 0.0, 0.0])
    coords = np.concatenate([single, turned])
    pattern = STRAND_PATTERN[variant % 2:] + STRAND_PATTERN[: variant % 2]
    arm = (pattern * (strand // len(pattern) + 1))[:strand]
    numbering = np.concatenate([np.arange(strand), np.arange(strand) + strand + 2])
    return Backbone(f"hairpin{strand}_v{variant}", coords, np.zeros(2 * strand, dtype=np.int64),
                    arm + arm[::-1], numbering)


def ideal_set(count: int, seed: int, kinds: tuple[str, ...] = ("helix", "bundle", "hairpin"),
              min_length: int = 14, max_length: int = 28) -> list[Backbone]:
    """`count` backbones cycling through `kinds`, lengths drawn between min_length and max_length per helix or
    strand pair (a bundle has three helices of that length)."""
    rng = np.random.default_rng(seed)
    made: list[Backbone] = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        length = int(rng.integers(min_length, max_length + 1))
        variant = i // len(kinds)
        if kind == "helix":
            made.append(helix(length, variant))
        elif kind == "bundle":
            made.append(bundle(3, length, variant))
        else:
            made.append(hairpin(max(3, length // 2), variant))
    names = [b.name for b in made]
    return [b if names.count(b.name) == 1 else _renamed(b, f"{b.name}_{i}") for i, b in enumerate(made)]


def _renamed(backbone: Backbone, name: str) -> Backbone:
    return Backbone(name, backbone.coords, backbone.chain, backbone.native, backbone.residue_index)
