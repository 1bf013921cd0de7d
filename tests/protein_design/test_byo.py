"""Your own designs and predicted structures: read with file:line errors, scored with scTM/RMSD (tmtools)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("biotite", reason="the `protein` extra (biotite) is not installed")
pytest.importorskip("tmtools", reason="the `protein` extra (tmtools) is not installed")

from harness import DataError  # noqa: E402
from methods.protein_design.byo import self_consistency  # noqa: E402
from methods.protein_design.data import load_pdb_folder  # noqa: E402
from methods.protein_design.generators import bundle, helix  # noqa: E402
from methods.protein_design.structure_files import write_pdb  # noqa: E402
from tests.protein_design.conftest import needs_weights  # noqa: E402


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "pdbs").mkdir()
    for backbone in (helix(10), bundle(2, 8)):
        write_pdb(backbone, tmp_path / "pdbs" / f"{backbone.name}.pdb")
    return tmp_path / "pdbs"


def test_recorded_designs_join_their_backbones(tmp_path: Path):
    folder = _folder(tmp_path)
    (tmp_path / "d.csv").write_text("backbone,sequence,predicted_structure\nhelix10_v0,AAAAAKKKKK,pdbs/helix10_v0.pdb\n"
                                    "bundle2x8_v0,EEEEKKKKLLLLAAAA,\n")
    data = load_pdb_folder(str(folder), designs_path=str(tmp_path / "d.csv"))
    assert data.recorded is not None and [d.sequence for d in data.recorded["helix10_v0"]] == ["AAAAAKKKKK"]
    assert data.recorded["bundle2x8_v0"][0].predicted is None


@pytest.mark.parametrize(("text", "message", "line"), [
    ("name,sequence\nx,AAA\n", "lacks column 'backbone'", 1),
    ("backbone,sequence\nhelix10_v0,AAAAAKKKKK\nnope,AAA\n", "backbone 'nope' is not in the folder", 3),
    ("backbone,sequence\nhelix10_v0,AAAA\n", "the sequence has 4 residues, backbone helix10_v0 has 10", 2),
    ("backbone,sequence\nhelix10_v0,\n", "empty sequence", 2),
])
def test_designs_file_errors_name_the_line(tmp_path: Path, text: str, message: str, line: int):
    folder = _folder(tmp_path)
    (tmp_path / "d.csv").write_text(text)
    with pytest.raises(DataError, match=message) as error:
        load_pdb_folder(str(folder), designs_path=str(tmp_path / "d.csv"))
    assert str(error.value).startswith(f"{tmp_path / 'd.csv'}:{line}:")


def test_self_consistency_is_one_and_zero_on_the_backbone_itself_and_lower_on_another(tmp_path: Path):
    folder = _folder(tmp_path)
    target = helix(10)
    tm, rmsd = self_consistency(target, folder / "helix10_v0.pdb")
    assert tm == pytest.approx(1.0, abs=1e-3) and rmsd == pytest.approx(0.0, abs=1e-2)
    from methods.protein_design.generators import hairpin

    write_pdb(hairpin(5), tmp_path / "pin.pdb")
    tm_other, _ = self_consistency(target, tmp_path / "pin.pdb")
    assert tm_other < 0.5  # TM-align superposes a few residues only: its RMSD there is small too


@needs_weights
def test_recorded_designs_are_scored_like_a_methods_with_their_self_consistency(tmp_path: Path):
    from methods.protein_design.metrics import KL_REFERENCE, RECOVERY, SC_RMSD, SC_TM
    from methods.protein_design.recorded import RecordedDesigns
    from methods.protein_design.task import InverseFolding
    from tests.method_runs import context

    folder = _folder(tmp_path)
    (tmp_path / "d.csv").write_text("backbone,sequence,predicted_structure\n"
                                    + "".join(f"{b.name},{b.native},pdbs/{b.name}.pdb\n"
                                              for b in (helix(10), bundle(2, 8)) for _ in range(2)))
    task = InverseFolding()
    instance = task.instance(load_pdb_folder(str(folder), designs_path=str(tmp_path / "d.csv")),
                             {"train": 0, "designs": 2}, 0)
    table = task.predictions(instance, RecordedDesigns().run(instance.inputs, context()))
    scores = task.score(instance, table, {m.name: m for m in (RECOVERY, SC_TM, SC_RMSD, KL_REFERENCE)})
    assert scores["recovery"] == 100.0 and scores["sc_tm"] == pytest.approx(1.0, abs=1e-3)
    assert scores["sc_rmsd"] == pytest.approx(0.0, abs=1e-2) and np.isnan(scores["kl_reference"])
