"""Bring your own: GSM8K/BBH-style questions as a dataset and your model's generations as a predictions file,
scored by `harness score` with the family's checkers; every mistake names the file, line and field."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("math_verify")

from harness import DataError  # noqa: E402
from harness.store import Store  # noqa: E402
from methods.modular_lm.data import byo  # noqa: E402
from methods.modular_lm.inputs import Answer  # noqa: E402
from methods.modular_lm.metrics import ACC_LOGIC, ACCURACY  # noqa: E402
from methods.modular_lm.task import DomainQA  # noqa: E402

QUESTIONS = [
    {"id": "gsm-1", "question": "Natalia sold 48 clips and then 24. How many?", "target": "48 + 24 = 72\n#### 72"},
    {"id": "gsm-2", "question": "2 + 2?", "target": "#### 4", "domain": "logic"},
    {"id": "bbh-1", "input": "Is the date valid? Options: (A) yes (B) no", "target": "(A)"},
    {"id": "bbh-2", "input": "not ( True ) and True is", "target": "False"},
]
GENERATIONS = {"gsm-1": "She sold 48 + 24 = 72 clips. The answer is 72.", "gsm-2": "The answer is 5.",
               "bbh-1": "Let's think step by step. So the answer is (A).", "bbh-2": "So the answer is True."}
SUITE = """\
schema_version: 1
suite: my_generations
task: modular_lm.domain_qa
defaults: {seeds: [0]}
datasets:
  mine: {loader: byo, args: {path: questions.jsonl}}
metrics: [accuracy, acc_logic]
methods:
  theirs: {predictions: "generations/{method}/{dataset}/{seed}.SUFFIX"}
"""
WRITERS = {
    "jsonl": lambda table, path: table.to_json(path, orient="records", lines=True),
    "csv": lambda table, path: table.to_csv(path, index=False),
    "parquet": lambda table, path: table.to_parquet(path),
}


def write(tmp_path: Path, rows: list[dict], raw: str | None = None) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text(raw if raw is not None else "\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def generations(instance) -> pd.DataFrame:
    """The user's generations in the task's predictions table, as the task writes a method's answers."""
    return DomainQA().predictions(instance, [Answer("full", i, GENERATIONS[i]) for i in GENERATIONS])


def score_file(cli, write_suite, tmp_path: Path, suffix: str, table: pd.DataFrame | None = None,
               raw: str | None = None) -> tuple[dict, Path]:
    """`harness score` of the suite with `table` (or the text `raw`) as the seed's predictions file."""
    write(tmp_path, QUESTIONS)
    path = tmp_path / "generations" / "theirs" / "mine" / f"0.{suffix}"
    path.parent.mkdir(parents=True)
    if raw is not None:
        path.write_text(raw)
    else:
        WRITERS[suffix](table, path)
    store = tmp_path / "store.sqlite"
    cli("score", str(write_suite(SUITE.replace("SUFFIX", suffix))), "--store", str(store), "--data-root",
        str(tmp_path), plugin=False)
    [record] = Store(store).records()
    return record, path


@pytest.mark.parametrize("suffix", list(WRITERS))
def test_user_generations_score_as_the_same_table_from_a_method(suffix, cli, write_suite, tmp_path):
    task = DomainQA()
    instance = task.instance(byo(write(tmp_path, QUESTIONS)), {}, 0)
    table = generations(instance)
    expected = task.score(instance, task.checked(instance, table), {"accuracy": ACCURACY, "acc_logic": ACC_LOGIC})
    assert expected == {"accuracy": 0.5, "acc_logic": 0.0}  # gsm-1 and bbh-1 right; gsm-2 (logic) wrong
    record, _ = score_file(cli, write_suite, tmp_path, suffix, table)
    assert record["status"] == "ok", record.get("error")
    assert record["metrics"] == expected


@pytest.mark.parametrize("routing", [{"routing": None}, {}], ids=["nulls", "left out"])
def test_a_jsonl_without_routing_is_scored(routing, cli, write_suite, tmp_path):
    raw = "".join(json.dumps({"condition": "full", "id": i, "generation": g, **routing}) + "\n"
                  for i, g in GENERATIONS.items())
    record, _ = score_file(cli, write_suite, tmp_path, "jsonl", raw=raw)
    assert record["status"] == "ok" and record["metrics"]["accuracy"] == 0.5


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


ROWS = [{"condition": "full", "id": i, "generation": g, "routing": ""} for i, g in GENERATIONS.items()]
BAD_FILES = {  # the file's text, the line and column the error names, and what it says
    "a second answer": (_jsonl([*ROWS, ROWS[1]]), 5, "id", "a second row for condition 'full', id 'gsm-2'"),
    "an unknown question": (_jsonl([*ROWS[:3], {**ROWS[3], "id": "bbh-9"}]), 4, "id",
                            "sample 'bbh-9' is not a test sample"),
    "a number for a generation": (_jsonl([*ROWS[:2], {**ROWS[2], "generation": 7}, ROWS[3]]), 3, "generation",
                                  "7 is not a text"),
    "an integer id": (_jsonl([{**ROWS[0], "id": 1}, *ROWS[1:]]), 1, "id", "1 is not a text"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_generations_file_names_its_line_and_column(case, cli, write_suite, tmp_path):
    raw, line, column, message = BAD_FILES[case]
    record, path = score_file(cli, write_suite, tmp_path, "jsonl", raw=raw)
    assert record["status"] == "failed" and f"{path}:{line}: {column}: {message}" in record["error"]


@pytest.mark.parametrize(("rows", "column", "message"), [
    ([{k: v for k, v in r.items() if k != "condition"} for r in ROWS], "condition", "no column 'condition'"),
    (ROWS[1:], "id", "1 test sample(s) have no row for condition 'full', e.g. 'gsm-1'"),
])
def test_a_generations_file_missing_a_column_or_a_question_names_it(rows, column, message, cli, write_suite,
                                                                   tmp_path):
    record, path = score_file(cli, write_suite, tmp_path, "jsonl", raw=_jsonl(rows))
    assert record["status"] == "failed" and f"{path}: {column}: {message}" in record["error"]


@pytest.mark.parametrize(("line", "field", "message"), [
    ('{"id": "a", "question": "q"}', "target", "'target' must be a string"),
    ('{"id": "a", "question": "q", "target": ""}', "target", "'target' is empty"),
    ('{"id": "a", "question": "q", "target": "1", "answer": 1}', "answer", "unknown key"),
    ('{"question": "q", "target": "1"}', "id", "no 'id'"),
    ('{"id": "a", "target": "1"}', "input", "'input' must be a string"),
    ('{"id": "a", "question": "q", "target": "1", "generation": "1"}', "generation", "holds no 'generation'"),
])
def test_mistakes_in_the_questions_name_the_line_and_field(tmp_path, line, field, message):
    good = json.dumps(QUESTIONS[0])
    with pytest.raises(DataError) as error:
        byo(write(tmp_path, [], raw=f"{good}\n\n{line}\n"))
    assert error.value.line == 3 and error.value.field == field and message in str(error.value)


def test_duplicate_ids_and_bad_json_are_rejected(tmp_path):
    with pytest.raises(DataError, match="appears twice"):
        byo(write(tmp_path, [QUESTIONS[0], QUESTIONS[0]]))
    with pytest.raises(DataError, match="not valid JSON") as error:
        byo(write(tmp_path, [], raw="{oops\n"))
    assert error.value.line == 1


def test_an_empty_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match="holds no questions"):
        byo(write(tmp_path, [], raw="\n\n"))


def test_training_methods_refuse_the_byo_dataset(tmp_path):
    instance = DomainQA().instance(byo(write(tmp_path, QUESTIONS)), {}, 0)
    with pytest.raises(DataError, match="generated"):
        instance.inputs.require_model("micro")
