"""Bring your own: a prompts file (the `prompts` dataset) and a model's SMILES answers as a suite's `predictions:`
file, scored by `harness score` like a method's own table; bad SMILES count as invalid, never crash; malformed
prompts and answer files are errors naming file and line."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness import DataError
from harness.store import Store

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.byo import read_prompts  # noqa: E402
from methods.molecule_opt.export import export  # noqa: E402

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def _write(path: Path, records: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


SUITE = """\
schema_version: 1
suite: my_model
task: molecule_opt.optimise
defaults: {seeds: [0], timeout: 5m, threads: 1}
datasets:
  mine: {loader: prompts, args: {path: prompts.jsonl, pool_size: 2000}}
metrics: [sr_released, sr_constrained, similarity, sr_x_sim_released, validity, mean_gain]
methods:
"""
THEIRS = SUITE + '  theirs: {predictions: "answers/{method}/{dataset}/{seed}.jsonl"}\n'


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    path = tmp_path / "prompts.jsonl"
    _write(path, [
        {"id": "p1", "source": ASPIRIN, "objective": "logp+"},
        {"id": "p2", "source": ASPIRIN, "objective": "qed+", "delta": 0.3}, "",
        {"id": "p3", "source": ASPIRIN, "objective": "logp+,qed-"},
        {"id": "p4", "source": ASPIRIN, "objective": "logp+"},
    ])
    return path


def _score(cli, write_suite, store: Path, tmp_path: Path) -> tuple[int, dict]:  # noqa: ANN001
    code, _, _ = cli("score", str(write_suite(THEIRS, "theirs.yaml")), "--store", str(store), "--data-root",
                       str(tmp_path), plugin=False)
    [record] = Store(store).records()
    return code, record


def test_a_users_answers_score_like_the_methods_own_table(cli, write_suite, store, tmp_path, prompts):
    suite = write_suite(SUITE + "  nearest: {impl: nearest}\n", "nearest.yaml")
    code, _, err = cli("run", str(suite), "--store", str(tmp_path / "own.sqlite"), "--data-root", str(tmp_path),
                       "--executor", "inline", plugin=False)
    assert code == 0, err
    with Store(tmp_path / "own.sqlite") as own:
        [record] = own.records()
        table = pd.read_parquet(own.predictions_path(record["run_id"]))
    answers = tmp_path / "answers" / "theirs" / "mine" / "0.jsonl"
    _write(answers, table.to_dict("records"))
    code, theirs = _score(cli, write_suite, store, tmp_path)
    assert code == 0, theirs.get("error")
    assert theirs["metrics"] == record["metrics"] and record["metrics"]["sr_constrained"] > 0


def test_unparsable_and_missing_answers_count_invalid(cli, write_suite, store, tmp_path, prompts):
    _write(tmp_path / "answers" / "theirs" / "mine" / "0.jsonl", [
        {"task": "p1", "smiles": METHYL_ESTER}, {"task": "p2", "smiles": METHYL_ESTER},
        {"task": "p3", "smiles": "C1CC(=O"}])  # p4 unanswered
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 0, record.get("error")
    metrics = record["metrics"]
    assert metrics["sr_constrained"] == 25.0 and metrics["validity"] == 50.0
    assert metrics["sr_released"] == 25.0  # p1 only: the methyl ester raises logP, not the QED p2 asks for
    assert metrics["similarity"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(("line", "message"), [
    ({"task": "p9", "smiles": "C"}, ":2: task: sample 'p9' is not a test sample"),
    ({"task": "p1", "smiles": "C"}, ":2: task: a second row for task 'p1'"),
    ({"task": "p2", "smiles": 7}, ":2: smiles: 7 is not a text"),
    ({"task": "p2", "smiles": None}, ":2: smiles: holds an empty value"),
    ({"task": "p2"}, ":2: smiles: holds an empty value"),
])
def test_a_bad_answers_file_names_its_line_and_column(cli, write_suite, store, tmp_path, prompts, line, message):
    answers = tmp_path / "answers" / "theirs" / "mine" / "0.jsonl"
    _write(answers, [{"task": "p1", "smiles": METHYL_ESTER}, line])
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 2 and record["status"] == "failed"
    assert f"{answers}{message}" in record["error"]


def test_an_answers_file_in_the_old_outputs_layout_is_refused_naming_the_column(cli, write_suite, store, tmp_path,
                                                                                prompts):
    answers = tmp_path / "answers" / "theirs" / "mine" / "0.jsonl"
    _write(answers, [{"id": "p1", "smiles": METHYL_ESTER}])
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 2 and f"{answers}: task: no column 'task' (found: id, smiles)" in record["error"]


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


def test_a_broken_prompts_file_fails_the_run_naming_its_line(cli, write_suite, store, tmp_path, prompts):
    _write(tmp_path / "answers" / "theirs" / "mine" / "0.jsonl", [{"task": "p1", "smiles": METHYL_ESTER}])
    _write(prompts, [{"id": "p1", "source": ASPIRIN, "objective": "qed"}])
    code, record = _score(cli, write_suite, store, tmp_path)
    assert code == 2 and f"{prompts}:1: objective: 'qed' is not an objective" in record["error"]


def test_exported_tasks_read_back_as_the_same_prompts(tmp_path):
    path = export("qed+", tmp_path / "p.jsonl", [0, 1], count=2, delta=0.3, pool_size=2000)
    tasks = read_prompts(path, 0.9)
    assert [t.id for t in tasks] == ["qed+-s0-test-0000", "qed+-s0-test-0001", "qed+-s1-test-0000",
                                     "qed+-s1-test-0001"]
    assert {t.delta for t in tasks} == {0.3} and all(str(t.objectives[0]) == "qed+" for t in tasks)
