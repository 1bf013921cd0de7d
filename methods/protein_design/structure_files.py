"""Backbones from your own PDB or mmCIF files (biotite), and backbones written as PDB (for tests and for a
structure predictor). Every mistake is a `DataError` naming the file, and the line of a PDB record where one
is to blame: a residue missing a backbone atom, a chain that is not in the file, an empty structure."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness import DataError
from methods.protein_design.backbone import AMINO_ACIDS, BACKBONE_ATOMS, Backbone

if TYPE_CHECKING:
    from biotite.structure import AtomArray

THREE_TO_ONE = {"ALA": "A", "CYS": "C", "ASP": "D", "GLU": "E", "PHE": "F", "GLY": "G", "HIS": "H", "ILE": "I",
                "LYS": "K", "LEU": "L", "MET": "M", "ASN": "N", "PRO": "P", "GLN": "Q", "ARG": "R", "SER": "S",
                "THR": "T", "VAL": "V", "TRP": "W", "TYR": "Y"}
ONE_TO_THREE = {v: k for k, v in THREE_TO_ONE.items()}
SUFFIXES = (".pdb", ".cif", ".mmcif")


def read_backbone(path: Path, chains: Sequence[str] | None = None) -> Backbone:
    """The protein residues of the first model, chains in file order (or `chains`' order); the native sequence
    is the file's (X for non-standard residues)."""
    import biotite.structure as struc

    atoms = _first_model(path)
    atoms = atoms[struc.filter_amino_acids(atoms) & ~atoms.hetero]
    present = list(dict.fromkeys(atoms.chain_id.tolist()))
    wanted = list(chains) if chains else present
    for chain in wanted:
        if chain not in present:
            raise DataError(f"chain {chain!r} is not in the file (chains: {', '.join(present) or 'none'})",
                            file=path, field="chains")
    if not wanted:
        raise DataError("no protein residues in the first model", file=path)
    coords, chain_index, numbers, letters = [], [], [], []
    for k, chain in enumerate(wanted):
        residues = atoms[atoms.chain_id == chain]
        for start, stop in zip(*_bounds(residues), strict=True):
            residue = residues[start:stop]
            found = {name: residue.coord[i] for i, name in enumerate(residue.atom_name) if name in BACKBONE_ATOMS}
            absent = [name for name in BACKBONE_ATOMS if name not in found]
            if absent:
                raise DataError(f"residue {residue.res_name[0]} {residue.res_id[0]} of chain {chain} has no "
                                f"{absent[0]} atom", file=path, line=_line_of(path, chain, int(residue.res_id[0])),
                                field="atoms", hint="Every residue needs N, CA, C and O; trim incomplete ones.")
            coords.append(np.stack([found[name] for name in BACKBONE_ATOMS]))
            chain_index.append(k)
            numbers.append(int(residue.res_id[0]))
            letters.append(THREE_TO_ONE.get(str(residue.res_name[0]), "X"))
    return Backbone(path.stem, np.asarray(coords, dtype=np.float64), np.asarray(chain_index, dtype=np.int64),
                    "".join(letters), np.asarray(numbers, dtype=np.int64))


def read_folder(folder: Path, chains: Sequence[str] | None = None) -> list[Backbone]:
    if not folder.is_dir():
        raise DataError(f"{folder} is not a folder", field="path", hint="Point `path` at a folder of PDB/mmCIF files.")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    if not files:
        raise DataError(f"no .pdb, .cif or .mmcif files in {folder}", field="path")
    return [read_backbone(p, chains) for p in files]


def write_pdb(backbone: Backbone, path: Path, sequence: str | None = None) -> None:
    """N, CA, C, O ATOM records, chains A, B, ...; residues named after `sequence` (default: the native, or GLY)."""
    letters = sequence or backbone.native or "G" * backbone.length
    lines, serial = [], 1
    for i in range(backbone.length):
        name = ONE_TO_THREE.get(letters[i], "GLY") if letters[i] in AMINO_ACIDS else "GLY"
        chain = chr(ord("A") + int(backbone.chain[i]))
        for atom, (x, y, z) in zip(BACKBONE_ATOMS, backbone.coords[i], strict=True):
            lines.append(f"ATOM  {serial:5d}  {atom:<3s} {name} {chain}{int(backbone.numbering[i]) + 1:4d}    "
                         f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00           {atom[0]}")
            serial += 1
    path.write_text("\n".join([*lines, "END", ""]), encoding="ascii")


def _first_model(path: Path) -> AtomArray:
    import biotite.structure.io as strucio

    if not path.is_file():
        raise DataError(f"no such structure file: {path}", file=path)
    try:
        structure = strucio.load_structure(str(path), model=1)
    except Exception as error:  # biotite raises several types for unreadable files
        raise DataError(f"cannot read the structure: {error}", file=path) from error
    return structure


def _bounds(atoms: AtomArray) -> tuple[np.ndarray, np.ndarray]:
    import biotite.structure as struc

    starts = struc.get_residue_starts(atoms)
    return starts, np.append(starts[1:], len(atoms))


def _line_of(path: Path, chain: str, residue: int) -> int | None:
    """The line of the residue's first ATOM record in a PDB file (None for mmCIF)."""
    if path.suffix.lower() != ".pdb":
        return None
    for number, line in enumerate(path.read_text(encoding="ascii", errors="replace").splitlines(), start=1):
        if line.startswith(("ATOM", "HETATM")) and line[21:22] == chain and line[22:26].strip() == str(residue):
            return number
    return None
