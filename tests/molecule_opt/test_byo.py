"""Bring your own: a prompts file and a model's SMILES outputs scored through a suite end to end; bad SMILES count
as invalid, never crash; malformed files are errors naming file and line (exit 3 from the CLI)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from harness import DataError

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.byo import read_outputs, read_prompts  # noqa: E402
from methods.molecule_opt.export import export  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def _write(path, records) -> None:  # noqa: ANN001
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


SUITE = """\
schema_version: 1
suite: my_model
task: molecule_opt.optimise
defaults: {seeds: [0], timeout: 5m, threads: 1}
datasets:
  mine: {loader: prompts, args: {path: prompts.jsonl, outputs_path: outputs.jsonl, pool_size: 2000}}
metrics: [success_rate, similarity, sr_x_sim, validity]
methods:
  mine: {impl: recorded}
  nearest: {impl: nearest}
"""


def test_a_users_outputs_are_scored_through_a_suite_and_a_broken_file_exits_3(cli, write_suite, tmp_path):
    _write(tmp_path / "prompts.jsonl", [
        {"id": "p1", "source": ASPIRIN, "objective": "logp+"},
        {"id": "p2", "source": ASPIRIN, "objective": "qed+", "delta": 0.3}, "",
        {"id": "p3", "source": ASPIRIN, "objective": "logp+,qed-"},
        {"id": "p4", "source": ASPIRIN, "objective": "logp+"},
    ])
    _write(tmp_path / "outputs.jsonl", [{"id": "p1", "smiles": METHYL_ESTER}, {"id": "p2", "smiles": METHYL_ESTER},
                                        {"id": "p3", "smiles": "C1CC(=O"}])  # p4 unanswered
    suite = str(write_suite(SUITE))
    code, _, err = cli("run", suite, "--store", str(tmp_path / "a.sqlite"), "--data-root", str(tmp_path),
                       "--executor", "inline", plugin=False)
    assert code == 0, err
    code, _, err = cli("export", "--suite", suite, "--store", str(tmp_path / "a.sqlite"), "--format", "csv", "--out",
                       str(tmp_path / "r.csv"), plugin=False)
    assert code == 0, err
    runs = pd.read_csv(tmp_path / "r.csv").set_index("method")
    assert runs.loc["mine", "metric.success_rate"] == 25.0 and runs.loc["mine", "metric.validity"] == 50.0
    assert runs.loc["mine", "metric.similarity"] == pytest.approx(2 / 3)
    _write(tmp_path / "outputs.jsonl", [{"id": "p1", "smiles": METHYL_ESTER}, {"id": "p9", "smiles": "C"}])
    code, _, err = cli("run", suite, "--store", str(tmp_path / "b.sqlite"), "--data-root", str(tmp_path), plugin=False)
    assert code == 3 and f"{tmp_path / 'outputs.jsonl'}:2: id: no task 'p9'" in err and "Traceback" not in err


@pytest.mark.parametrize(("line", "message"), [
    ("{oops", r"prompts.jsonl:2:2: not valid JSON"),
    ({"source": ASPIRIN, "objective": "qed+"}, r"prompts.jsonl:2: id: 'id' must be a string"),
    ({"id": "a", "source": ASPIRIN, "objective": "qed+"}, r"prompts.jsonl:2: id: task id 'a' appears twice"),
    ({"id": "b", "source": "C1CC(", "objective": "qed+"}, r"prompts.jsonl:2: source: source 'C1CC\(' is not a valid"),
    ({"id": "b", "source": ASPIRIN, "objective": "qed"}, r"prompts.jsonl:2: objective: 'qed' is not an objective"),
    ({"id": "b", "source": ASPIRIN, "objective": "qed+", "delta": 2}, r"prompts.jsonl:2: delta: delta must be"),
    ({"id": "b", "source": ASPIRIN, "objective": "qed+", "x": 1}, r"prompts.jsonl:2: x: unknown key 'x'"),
])
def test_prompt_mistakes_name_the_file_and_line(tmp_path, line, message):
    _write(tmp_path / "prompts.jsonl", [{"id": "a", "source": ASPIRIN, "objective": "qed+"}, line])
    with pytest.raises(DataError, match=message):
        read_prompts(tmp_path / "prompts.jsonl", 0.4)


@pytest.mark.parametrize(("line", "message"), [
    ({"id": "a", "smiles": "C"}, r"outputs.jsonl:2: id: task 'a' is answered twice"),
    ({"id": "a2", "smiles": "C"}, r"outputs.jsonl:2: id: no task 'a2'"),
    ({"id": "b", "smiles": 7}, r"outputs.jsonl:2: smiles: 'smiles' must be a string"),
])
def test_output_mistakes_name_the_file_and_line(tmp_path, line, message):
    _write(tmp_path / "outputs.jsonl", [{"id": "a", "smiles": "not smiles at all"}, line])
    with pytest.raises(DataError, match=message):
        read_outputs(tmp_path / "outputs.jsonl", {"a", "b"})


def test_exported_tasks_read_back_as_the_same_prompts(tmp_path):
    path = export("qed+", tmp_path / "p.jsonl", [0, 1], count=2, delta=0.3, pool_size=2000)
    tasks = read_prompts(path, 0.9)
    assert [t.id for t in tasks] == ["qed+-s0-test-0000", "qed+-s0-test-0001", "qed+-s1-test-0000",
                                     "qed+-s1-test-0001"]
    assert {t.delta for t in tasks} == {0.3} and all(str(t.objectives[0]) == "qed+" for t in tasks)
