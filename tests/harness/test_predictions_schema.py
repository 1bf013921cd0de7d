"""The engine's check of a predictions table against its task's declared schema: each problem names the file,
the line (CSV, JSONL) or row (Parquet, a table in memory) and the column."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.errors import DataError
from harness.prediction_files import read_predictions_file
from harness.predictions_check import checked_table
from harness.predictions_schema import Column, PredictionsSchema

ANSWERS = PredictionsSchema(
    (Column("condition", "text"), Column("id", "text"), Column("answer", "text"),
     Column("confidence", "number", may_be_empty=True), Column("correct", "boolean"), Column("tokens", "integer")),
    sample="id", per=("condition",))
PANEL = PredictionsSchema((Column("sample", "integer"), Column("consult_", "boolean", prefix=True)), sample="sample")
DRAWS = PredictionsSchema((Column("puzzle", "text"), Column("draw", "integer"), Column("answer", "text")),
                          sample="puzzle", repeat="draw", every_sample=False)
IDS = ["q1", "q2"]


def _answers(**changes: list[object]) -> pd.DataFrame:
    table = pd.DataFrame({"condition": ["base", "base", "tuned", "tuned"], "id": ["q1", "q2", "q1", "q2"],
                          "answer": ["4", "7", "4", "8"], "confidence": [0.9, np.nan, 0.5, 0.2],
                          "correct": [1, 0, 1, 1], "tokens": [3.0, 4.0, 5.0, 6.0]})
    return table.assign(**changes)


def _error(schema: PredictionsSchema, table: pd.DataFrame, samples: list[object] | None = IDS, **where) -> str:
    with pytest.raises(DataError) as caught:
        checked_table(schema, table, samples, **where)
    return str(caught.value)


def test_a_column_that_may_be_empty_may_be_left_out():
    checked = checked_table(ANSWERS, _answers().drop(columns="confidence"), IDS)
    assert checked["confidence"].isna().all() and len(checked) == 4


def test_a_good_table_comes_back_in_its_declared_kinds():
    checked = checked_table(ANSWERS, _answers(), IDS)
    assert checked["correct"].dtype == bool and checked["tokens"].dtype == np.int64
    assert np.isnan(checked["confidence"].iloc[1])


@pytest.mark.parametrize(("table", "message"), [
    (_answers().drop(columns="answer"), "answer: the predictions table: no column 'answer' (found: condition, id,"),
    (_answers(tokens=[3, 4.5, 5, 6]), "tokens: the predictions table: row 1 (counting from 0): 4.5 is not an integer"),
    (_answers(correct=[1, 2, 0, 1]), "correct: the predictions table: row 1 (counting from 0): 2 is not true or false"),
    (_answers(answer=["4", None, "4", "8"]), "answer: the predictions table: row 1 (counting from 0): holds an empty "
                                             "value (NaN or null; 1 such row)"),
    (_answers(answer=["4", 7, "4", "8"]), "row 1 (counting from 0): 7 is not a text"),
    (_answers(confidence=[0.9, np.inf, 0.5, 0.2]), "row 1 (counting from 0): holds inf, not a finite number"),
    (_answers(confidence=["0.9", 0.1, 0.5, 0.2]), "confidence: the predictions table: row 0 (counting from 0): "
                                                  "'0.9' is not a number"),
    (_answers(id=["q1", "q1", "q1", "q2"]), "row 1 (counting from 0): a second row for condition 'base', id 'q1'"),
    (_answers(id=["q1", "q9", "q1", "q2"]), "id: the predictions table: row 1 (counting from 0): sample 'q9' is not a "
                                            "test sample of this dataset (1 such row)"),
    (_answers().iloc[:3], "id: the predictions table: 1 test sample(s) have no row for condition 'tuned', e.g. 'q2'"),
])
def test_each_problem_names_its_row_and_column(table, message):
    assert message in _error(ANSWERS, table)


def test_a_csv_file_names_the_line_of_the_row(tmp_path):
    path = tmp_path / "answers.csv"
    _answers(tokens=[3, 4, "x", 6]).to_csv(path, index=False)
    table, lines = read_predictions_file(path, ANSWERS)
    assert _error(ANSWERS, table, file=path, lines=lines).startswith(f"{path}:4: tokens: 'x' is not an integer")


def test_a_jsonl_file_names_the_line_of_the_row_past_blank_lines(tmp_path):
    path = tmp_path / "answers.jsonl"
    rows = _answers().to_dict("records")
    rows[2]["correct"] = "yes"
    path.write_text("\n".join(pd.Series(rows).map(lambda r: pd.Series(r).to_json())) .replace("\n", "\n\n", 1))
    table, lines = read_predictions_file(path)
    assert lines == [1, 3, 4, 5]
    assert _error(ANSWERS, table, file=path, lines=lines).startswith(f"{path}:4: correct: 'yes' is not true or false")


def test_a_parquet_file_names_the_row(tmp_path):
    path = tmp_path / "answers.parquet"
    _answers(id=["q1", "q2", "q1", "q1"]).to_parquet(path)
    table, lines = read_predictions_file(path)
    assert lines is None
    assert _error(ANSWERS, table, file=path).startswith(f"{path}: id: row 3 (counting from 0): a second row for")


def test_an_unknown_kind_of_file_is_refused_with_the_kinds_it_takes(tmp_path):
    path = tmp_path / "answers.txt"
    path.write_text("q1 4\n")
    with pytest.raises(DataError, match=r"unknown kind of predictions file '.txt'.*\.csv or \.jsonl"):
        read_predictions_file(path)


def test_prefixed_columns_are_checked_each_and_one_at_least_is_needed():
    table = pd.DataFrame({"sample": [0, 1], "consult_model": [1, 0], "consult_expert1": [0, 3]})
    assert "consult_expert1: the predictions table: row 1 (counting from 0): 3 is not true or false" in _error(
        PANEL, table, [0, 1])
    assert "no column named consult_<...>" in _error(PANEL, table[["sample"]], [0, 1])


def test_repeated_answers_are_keyed_by_their_number_and_samples_may_be_left_out():
    table = pd.DataFrame({"puzzle": ["a", "a", "b"], "draw": [0, 1, 0], "answer": ["x", "y", "z"]})
    assert len(checked_table(DRAWS, table, ["a", "b", "c"])) == 3
    assert "a second row for puzzle 'a', draw 0" in _error(DRAWS, table.assign(draw=[0, 0, 0]), ["a", "b"])


def test_rows_outside_the_test_split_are_left_out_where_the_schema_allows_them():
    lenient = PredictionsSchema((Column("sample", "integer"), Column("score", "number")), sample="sample",
                                other_samples_ok=True)
    table = pd.DataFrame({"sample": [0, 1, 2, 3], "score": [0.1, 0.2, 0.3, 0.4]})
    assert checked_table(lenient, table, [1, 3])["sample"].tolist() == [1, 3]
    repeated_labels = pd.concat([table.iloc[:2], table.iloc[2:]]).set_axis([0, 1, 0, 1])
    assert checked_table(lenient, repeated_labels, [1, 3])["sample"].tolist() == [1, 3]


def test_an_empty_table_answers_no_sample_even_when_grouped():
    assert "no rows, and 2 test sample(s) to answer" in _error(ANSWERS, _answers().iloc[:0])


def test_ids_may_be_integers_or_texts_and_are_compared_as_texts():
    named = PredictionsSchema((Column("sample", "id"), Column("score", "number")), sample="sample")
    stored = pd.DataFrame({"sample": [0, 1], "score": [0.5, 0.2]})
    assert checked_table(named, stored, ["0", "1"])["sample"].tolist() == ["0", "1"]
    assert checked_table(named, stored.assign(sample=["0", "1"]), [0, 1])["sample"].tolist() == ["0", "1"]
    assert "row 1 (counting from 0): 1.5 is not an id" in _error(named, stored.assign(sample=[0, 1.5]), [0, 1])


def test_a_key_column_must_be_declared():
    with pytest.raises(ValueError, match="key column 'id' is not one of its columns"):
        PredictionsSchema((Column("sample", "integer"),), sample="id")
