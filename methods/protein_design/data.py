"""The family's datasets: generated ideal backbones, and your own folder of PDB/mmCIF structures."""
from __future__ import annotations

from pathlib import Path

from harness import DataError
from methods.protein_design.generators import ideal_set
from methods.protein_design.structure_files import read_folder
from methods.protein_design.problem import BackboneSet

KINDS = ("helix", "bundle", "hairpin")


def load_ideal(count: int = 12, seed: int = 0, kinds: list[str] | None = None, min_length: int = 14,
               max_length: int = 20) -> BackboneSet:
    """`count` generated backbones (helices, three-helix bundles, hairpins) with native-like sequences."""
    chosen = tuple(kinds or KINDS)
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise DataError(f"unknown backbone kind {unknown[0]!r}; the kinds are {', '.join(KINDS)}", field="kinds")
    if count < 2 or not 6 <= min_length <= max_length <= 200:
        raise DataError(f"count >= 2 and 6 <= min_length <= max_length <= 200, got {count}, {min_length}, "
                        f"{max_length}", field="count")
    return BackboneSet(f"ideal{count}", tuple(ideal_set(count, seed, chosen, min_length, max_length)))


def load_pdb_folder(path: str, chains: list[str] | None = None) -> BackboneSet:
    """Every .pdb/.cif/.mmcif file of the folder, one backbone each (only `chains`, if given). Your own designs
    of them are a suite's `predictions:` file (the task's `predictions_schema`)."""
    folder = Path(path)
    return BackboneSet(folder.name, tuple(read_folder(folder, chains)))
