"""Bring your own generations: GSM8K/BBH-style JSONL scored by the same checkers; mistakes name file:line:field."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("math_verify")

from harness import DataError  # noqa: E402
from methods.modular_lm.data import byo  # noqa: E402
from methods.modular_lm.metrics import ACCURACY  # noqa: E402
from methods.modular_lm.task import DomainQA, scored_run  # noqa: E402

ROWS = [
    {"id": "gsm-1", "question": "Natalia sold 48 clips and then 24. How many?", "target": "48 + 24 = 72\n#### 72",
     "generation": "She sold 48 + 24 = 72 clips. The answer is 72."},
    {"id": "gsm-2", "question": "2 + 2?", "target": "#### 4", "generation": "The answer is 5."},
    {"id": "bbh-1", "input": "Is the date valid? Options: (A) yes (B) no", "target": "(A)",
     "generation": "Let's think step by step. So the answer is (A)."},
    {"id": "bbh-2", "input": "not ( True ) and True is", "target": "False", "generation": "So the answer is True."},
]


def write(tmp_path, rows, raw=None):
    path = tmp_path / "gens.jsonl"
    path.write_text(raw if raw is not None else "\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_user_generations_are_scored_by_the_family_checkers(tmp_path):
    from methods.modular_lm.baselines.recorded import Recorded

    task = DomainQA()
    instance = task.instance(byo(write(tmp_path, ROWS)), {}, 0)
    output = Recorded().run(instance.inputs, None)
    run = scored_run(instance.truth, task.predictions(instance, output))
    assert dict(zip(run.rows["id"], run.rows["correct"], strict=True)) == {
        "gsm-1": True, "gsm-2": False, "bbh-1": True, "bbh-2": False}
    assert ACCURACY(run) == 0.5
    assert set(run.rows["domain"]) == {"numeric", "text"}


@pytest.mark.parametrize(("line", "field", "message"), [
    ('{"id": "a", "question": "q", "target": "1"}', "generation", "'generation' must be a string"),
    ('{"id": "a", "question": "q", "target": "", "generation": "1"}', "target", "'target' is empty"),
    ('{"id": "a", "question": "q", "target": "1", "generation": "1", "answer": 1}', "answer", "unknown key"),
    ('{"question": "q", "target": "1", "generation": "1"}', "id", "no 'id'"),
    ('{"id": "a", "target": "1", "generation": "1"}', "input", "'input' must be a string"),
])
def test_mistakes_name_the_line_and_field(tmp_path, line, field, message):
    good = json.dumps(ROWS[0])
    with pytest.raises(DataError) as error:
        byo(write(tmp_path, [], raw=f"{good}\n\n{line}\n"))
    assert error.value.line == 3 and error.value.field == field and message in str(error.value)


def test_duplicate_ids_and_bad_json_are_rejected(tmp_path):
    with pytest.raises(DataError, match="appears twice"):
        byo(write(tmp_path, [ROWS[0], ROWS[0]]))
    with pytest.raises(DataError, match="not valid JSON") as error:
        byo(write(tmp_path, [], raw="{oops\n"))
    assert error.value.line == 1


def test_an_empty_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match="holds no generations"):
        byo(write(tmp_path, [], raw="\n\n"))


def test_training_methods_refuse_the_byo_dataset(tmp_path):
    instance = DomainQA().instance(byo(write(tmp_path, ROWS)), {}, 0)
    with pytest.raises(DataError, match="generated"):
        instance.inputs.require_model("micro")
