"""Ideal backbones have ideal geometry, and PDB/mmCIF files round-trip with clear errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("biotite", reason="the `protein` extra (biotite) is not installed")

from harness import DataError  # noqa: E402
from methods.protein_design.data import load_ideal, load_pdb_folder  # noqa: E402
from methods.protein_design.generators import BUNDLE_RADIUS, STRAND_SPACING, bundle, hairpin, helix  # noqa: E402
from methods.protein_design.geometry import CA_C, N_CA  # noqa: E402
from methods.protein_design.structure_files import read_backbone, write_pdb  # noqa: E402


def _distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.norm(a - b, axis=-1)


def test_helix_has_ideal_bonds_and_the_alpha_helix_pitch():
    atoms = helix(20).coords
    np.testing.assert_allclose(_distance(atoms[:, 0], atoms[:, 1]), N_CA, atol=1e-9)
    np.testing.assert_allclose(_distance(atoms[:, 1], atoms[:, 2]), CA_C, atol=1e-9)
    ca = atoms[:, 1]
    np.testing.assert_allclose(_distance(ca[1:], ca[:-1]), 3.80, atol=0.02)
    assert 5.0 < _distance(ca[4:], ca[:-4]).mean() < 6.6  # i, i+4 in an alpha helix: about 6.2 A
    assert 1.4 < _distance(ca[18], ca[0]) / 18 < 1.6      # 1.5 A rise per residue


def test_hairpin_strands_pair_at_sheet_spacing_and_bundle_helices_sit_on_a_circle():
    for strand in (6, 7):
        ca = hairpin(strand).coords[:, 1]
        paired = _distance(ca[:strand], ca[::-1][:strand])
        assert (paired >= STRAND_SPACING - 1e-6).all() and (paired < 5.5).all()  # 4.4-5.5 A in real sheets
    pin = hairpin(7)
    assert pin.numbering[7] - pin.numbering[6] == 3 and pin.native == "KVTVEVKKVEVTVK"
    three = bundle(3, 14)
    centres = np.stack([three.coords[three.chain == k, 1].mean(axis=0) for k in range(3)])
    np.testing.assert_allclose(np.linalg.norm(centres[:, :2], axis=1), BUNDLE_RADIUS, atol=0.6)
    assert len(three.native) == three.length == 42


def test_ideal_set_cycles_kinds_with_unique_names():
    data = load_ideal(count=7, seed=1)
    kinds = [b.name[:5] for b in data.backbones]
    assert kinds == ["helix", "bundl", "hairp", "helix", "bundl", "hairp", "helix"]
    assert len({b.name for b in data.backbones}) == 7
    with pytest.raises(DataError, match="unknown backbone kind 'sheet'"):
        load_ideal(kinds=["sheet"])


def test_pdb_round_trip_keeps_coordinates_chains_and_sequence(tmp_path: Path):
    original = bundle(2, 10)
    write_pdb(original, tmp_path / "two.pdb")
    back = read_backbone(tmp_path / "two.pdb")
    np.testing.assert_allclose(back.coords, original.coords, atol=1e-3)
    assert back.native == original.native and list(back.chain) == list(original.chain)
    assert read_backbone(tmp_path / "two.pdb", ["B"]).length == 10


def test_mmcif_is_read_like_pdb(tmp_path: Path):
    import biotite.structure.io as strucio

    write_pdb(helix(9), tmp_path / "h.pdb")
    strucio.save_structure(str(tmp_path / "h.cif"), strucio.load_structure(str(tmp_path / "h.pdb")))
    np.testing.assert_allclose(read_backbone(tmp_path / "h.cif").coords, read_backbone(tmp_path / "h.pdb").coords)


def test_a_residue_missing_its_oxygen_is_named_with_its_line(tmp_path: Path):
    write_pdb(helix(6), tmp_path / "h.pdb")
    lines = (tmp_path / "h.pdb").read_text().splitlines()
    del lines[3 * 4 + 3]  # residue 4's O
    (tmp_path / "h.pdb").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as error:
        read_backbone(tmp_path / "h.pdb")
    assert str(error.value).startswith(f"{tmp_path / 'h.pdb'}:13: atoms: residue ")
    assert "has no O atom" in str(error.value)


def test_missing_chain_and_empty_folder_are_errors(tmp_path: Path):
    write_pdb(helix(6), tmp_path / "h.pdb")
    with pytest.raises(DataError, match="chain 'C' is not in the file"):
        read_backbone(tmp_path / "h.pdb", ["C"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no .pdb, .cif or .mmcif files"):
        load_pdb_folder(str(tmp_path / "empty"))
