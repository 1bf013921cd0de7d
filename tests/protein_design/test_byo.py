"""Your own backbones (the `pdb_folder` dataset) and your own designs and predicted structures as a suite's
`predictions:` file, scored by `harness score` like a method's own table, with scTM / RMSD from tmtools; a bad
designs file is an error naming the file and, where the engine checks it, its line and column."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("biotite", reason="the `protein` extra (biotite) is not installed")
pytest.importorskip("tmtools", reason="the `protein` extra (tmtools) is not installed")

from harness.record_json import RecordJson  # noqa: E402
from harness.store import Store  # noqa: E402
from methods.protein_design.generators import bundle, hairpin, helix  # noqa: E402
from methods.protein_design.scored import self_consistency  # noqa: E402
from methods.protein_design.structure_files import write_pdb  # noqa: E402
from tests.protein_design.conftest import needs_weights  # noqa: E402

BACKBONES = (helix(10), bundle(2, 8))
SUITE = """\
schema_version: 1
suite: my_designs
task: protein_design.inverse_folding
defaults: {seeds: [0], timeout: 5m, threads: 1}
datasets:
  mine: {loader: pdb_folder, args: {path: pdbs}, split: {train: 0, designs: 2}}
metrics: [recovery, diversity, designability, developability, hypervolume, win_rate, kl_reference, sc_tm, sc_rmsd,
          kl_full, shuffle_z, sp_z, contact_energy]
methods:
"""
THEIRS = SUITE + '  theirs: {predictions: "designs/{method}/{dataset}/{seed}.csv"}\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two backbones' PDB files (the dataset), and each one's structure again under predicted/ as if a predictor
    gave it."""
    (tmp_path / "pdbs").mkdir()
    (tmp_path / "predicted").mkdir()
    for backbone in BACKBONES:
        write_pdb(backbone, tmp_path / "pdbs" / f"{backbone.name}.pdb")
        write_pdb(backbone, tmp_path / "predicted" / f"{backbone.name}.pdb")
    return tmp_path / "pdbs"


@pytest.fixture
def designs(tmp_path: Path) -> Path:
    path = tmp_path / "designs" / "theirs" / "mine" / "0.csv"
    path.parent.mkdir(parents=True)
    return path


def _natives(predicted: Path) -> str:
    """A designs CSV: each backbone designed twice as its own native sequence, predicted as itself."""
    lines = ["backbone,design,sequence,policy_logp,predicted_structure"]
    lines += [f"{b.name},{i},{b.native},,{predicted / b.name}.pdb" for b in BACKBONES for i in range(2)]
    return "\n".join(lines) + "\n"


def _score(cli, write_suite, store: Path, tmp_path: Path) -> tuple[int, RecordJson]:  # noqa: ANN001
    code, _, _ = cli("score", str(write_suite(THEIRS, "theirs.yaml")), "--store", str(store), "--data-root",
                     str(tmp_path), plugin=False)
    [record] = Store(store).records()
    return code, record


def test_self_consistency_is_one_and_zero_on_the_backbone_itself_and_lower_on_another(tmp_path: Path,
                                                                                        folder: Path):
    target = helix(10)
    tm, rmsd = self_consistency(target, folder / "helix10_v0.pdb")
    assert tm == pytest.approx(1.0, abs=1e-3) and rmsd == pytest.approx(0.0, abs=1e-2)
    write_pdb(hairpin(5), tmp_path / "pin.pdb")
    tm_other, _ = self_consistency(target, tmp_path / "pin.pdb")
    assert tm_other < 0.5  # TM-align superposes a few residues only: its RMSD there is small too


@needs_weights
def test_a_users_designs_score_like_the_methods_own_table(cli, write_suite, store, tmp_path, folder, designs):
    own = tmp_path / "own.sqlite"
    code, _, err = cli("run", str(write_suite(SUITE + "  proteinmpnn: {impl: proteinmpnn}\n", "own.yaml")),
                       "--store", str(own), "--data-root", str(tmp_path), "--executor", "inline", plugin=False)
    assert code == 0, err
    with Store(own) as runs:
        [record] = runs.records()
        table = pd.read_parquet(runs.predictions_path(record["run_id"]))
    table.to_csv(designs, index=False)
    code, theirs = _score(cli, write_suite, store, tmp_path)
    assert code == 0, theirs.get("error")
    assert theirs["metrics"] == pytest.approx(record["metrics"], nan_ok=True)
    assert np.isfinite(record["metrics"]["kl_reference"]) and 0 < record["metrics"]["recovery"] < 100
    assert record["metrics"]["kl_full"] == 0.0 and np.isfinite(record["metrics"]["sp_z"])


@needs_weights
def test_native_designs_with_their_own_structures_are_perfectly_self_consistent(cli, write_suite, store,
                                                                                 tmp_path, folder, designs):
    designs.write_text(_natives(tmp_path / "predicted"))
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 0, record.get("error")
    scores = record["metrics"]
    assert scores["recovery"] == 100.0 and scores["sc_tm"] == pytest.approx(1.0, abs=1e-3)
    assert scores["sc_rmsd"] == pytest.approx(0.0, abs=1e-2)
    assert np.isnan(scores["kl_reference"]) and np.isnan(scores["kl_full"])  # no policy_logp or policy_kl: no KL
    # the independent judges need the sequence and backbone only: natives of ideal elements thread well
    assert scores["shuffle_z"] < -1 and np.isfinite(scores["sp_z"]) and scores["contact_energy"] < 0


@needs_weights
def test_designs_without_likelihoods_or_structures_leave_those_columns_out(cli, write_suite, store, tmp_path,
                                                                           folder, designs):
    designs.write_text(_only_sequences(_natives(tmp_path / "predicted")))
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 0, record.get("error")
    scores = record["metrics"]
    assert scores["recovery"] == 100.0 and scores["diversity"] == 0.0
    assert np.isnan(scores["sc_tm"]) and np.isnan(scores["sc_rmsd"]) and np.isnan(scores["kl_reference"])


def _only_sequences(text: str) -> str:
    """The CSV without its two columns that may be left out, policy_logp and predicted_structure."""
    return "\n".join(line.rsplit(",", 2)[0] for line in text.splitlines()) + "\n"


def _without_backbone(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("bundle2x8_v0,"))


@needs_weights
@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace("helix10_v0,1,", "nope,1,"), "{designs}:3: backbone: sample 'nope' is not a test sample"),
    (lambda t: t.replace("helix10_v0,1,", "helix10_v0,0,"),
     "{designs}:3: backbone: a second row for backbone 'helix10_v0', design 0"),
    (lambda t: t.replace("helix10_v0,1,", "helix10_v0,x,"), "{designs}:3: design: 'x' is not an integer"),
    (lambda t: _only_sequences(t).replace("backbone,design,", "backbone,number,"),
     "{designs}: design: no column 'design' (found: backbone, number, sequence)"),
    (_without_backbone, "{designs}: backbone: 1 test sample(s) have no row, e.g. 'bundle2x8_v0'"),
    (lambda t: t.replace(f"helix10_v0,0,{helix(10).native}", "helix10_v0,0,AAAA"),
     "{designs}: sequence: backbone helix10_v0 has 10 positions; design 'AAAA'"),
    (lambda t: t.replace("predicted/helix10_v0.pdb", "predicted/bundle2x8_v0.pdb"),
     "{predicted}/bundle2x8_v0.pdb: the prediction has 16 residues, backbone helix10_v0 10"),
])
def test_a_bad_designs_file_names_itself_and_where(cli, write_suite, store, tmp_path, folder, designs, change,
                                                   message):
    designs.write_text(change(_natives(tmp_path / "predicted")))
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 2 and record["status"] == "failed"
    assert message.format(designs=designs, predicted=tmp_path / "predicted") in record["error"]
