"""Bring your own corpus: a JSONL of text lines; every mistake names file:line:field, and through `harness run`
exits 3 without a traceback."""
from __future__ import annotations

import json

import pytest

from harness import DataError
from methods.model_init.data import byo

LINES = [{"text": f"the {w} is red", "split": "train"} for w in ("cat", "dog", "car")] + [
    {"text": "the sky is blue", "split": "dev"}, {"text": "q : what is red ? a : cat", "split": "test"}]


def write(tmp_path, rows, raw=None):
    path = tmp_path / "corpus.jsonl"
    path.write_text(raw if raw is not None else "\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_a_users_corpus_is_split_and_its_test_lines_answered_by_their_last_word(tmp_path):
    data = byo(write(tmp_path, LINES), student={"hidden": 96, "layers": 2, "heads": 3, "ffn": 256})
    assert data.corpus.train[0] == "the cat is red" and data.corpus.dev == ("the sky is blue",)
    assert data.corpus.prompts() == ("q : what is red ? a :",) and data.corpus.answers() == ("cat",)
    assert data.corpus.test_ids == ("line-5",) and "blue" in data.corpus.words


def test_without_splits_every_tenth_line_is_dev_and_the_next_test(tmp_path):
    rows = [{"text": f"line {i} ends here"} for i in range(1, 21)]
    corpus = byo(write(tmp_path, rows)).corpus
    assert corpus.dev == ("line 9 ends here", "line 19 ends here")
    assert corpus.test == ("line 10 ends here", "line 20 ends here") and len(corpus.train) == 16


@pytest.mark.parametrize(("line", "field", "message"), [
    ('{"text": "one"}', "text", "at least two words"),
    ('{"text": 5, "split": "train"}', "text", "must be a string"),
    ('{"text": "a b", "split": "val"}', "split", "must be one of train, dev, test"),
    ('{"text": "a b", "words": 2}', "words", "unknown key"),
])
def test_mistakes_name_the_line_and_field(tmp_path, line, field, message):
    good = json.dumps(LINES[0])
    with pytest.raises(DataError) as error:
        byo(write(tmp_path, [], raw=f"{good}\n\n{line}\n"))
    assert error.value.line == 3 and error.value.field == field and message in str(error.value)
    assert f"{tmp_path / 'corpus.jsonl'}:3" in str(error.value) and error.value.hint


def test_a_missing_split_and_bad_json_are_errors(tmp_path):
    with pytest.raises(DataError, match="holds no test lines"):
        byo(write(tmp_path, LINES[:4]))
    with pytest.raises(DataError, match="not valid JSON") as error:
        byo(write(tmp_path, [], raw="{oops\n"))
    assert error.value.line == 1


def test_a_student_wider_per_head_than_the_source_is_refused(tmp_path):
    with pytest.raises(DataError, match="heads are 64 wide, the source's 32"):
        byo(write(tmp_path, LINES), student={"hidden": 128, "layers": 2, "heads": 2, "ffn": 256})


SUITE = """\
schema_version: 1
suite: my_corpus
task: model_init.pretrain
defaults: {seeds: [0], timeout: 5m, threads: 1}
datasets:
  mine: {loader: byo, args: {path: corpus.jsonl}}
metrics: [accuracy]
methods:
  random: {impl: random, params: {steps: 2, eval_every: 1}}
"""


def test_a_broken_corpus_exits_3_through_harness_run_naming_file_and_line(cli, write_suite, tmp_path):
    write(tmp_path, [], raw=json.dumps(LINES[0]) + '\n{"text": "a b", "split": "later"}\n')
    code, _, err = cli("run", str(write_suite(SUITE)), "--store", str(tmp_path / "a.sqlite"), "--data-root",
                       str(tmp_path), plugin=False)
    assert code == 3 and f"{tmp_path / 'corpus.jsonl'}:2: split: 'split' must be one of" in err
    assert "Traceback" not in err
