"""Rows from local Hugging Face data: every format gives the same rows, suite field mapping, an error for each
user mistake naming the file and field, and fingerprints that follow the content."""
from __future__ import annotations

import pandas as pd
import pytest

from tests.extras import require_extra

require_extra("math-reasoning")  # harness.hf_datasets reads through the datasets library

from harness.dataset_files import resolve_dataset  # noqa: E402
from harness.errors import DataError  # noqa: E402
from harness.hf_datasets import Field, hub_fingerprint, read_rows, table_source  # noqa: E402
from tests.hf_cache import cache_hub_dataset  # noqa: E402

FRAME = pd.DataFrame({"q": ["1+1", "Half of 1?"], "answer": ["2", "0.50"], "level": ["Level 1", "Level 2"]})
SCHEMA = (Field("question"), Field("answer"), Field("level", (str, int), required=False),
          Field("subject", required=False))
ROWS = [{"question": "1+1", "answer": "2", "level": "Level 1"},
        {"question": "Half of 1?", "answer": "0.50", "level": "Level 2"}]


def _write(tmp_path, format: str, frame: pd.DataFrame = FRAME) -> str:
    """`frame` as a file (a folder for `saved`) of `format` under tmp_path; returns its path."""
    import datasets

    path = tmp_path / f"data.{format}"
    if format == "parquet":
        frame.to_parquet(path)
    elif format == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    elif format == "csv":
        frame.to_csv(path, index=False)
    else:
        datasets.DatasetDict({"test": datasets.Dataset.from_pandas(frame), "train": datasets.Dataset.from_pandas(
            frame.head(1))}).save_to_disk(str(path))
    return str(path)


def _rows(format: str, path: str | None = None, **args) -> list[dict]:
    return read_rows(table_source(format, path, **args), SCHEMA)


@pytest.mark.parametrize("format", ["parquet", "jsonl", "csv", "saved"])
def test_each_file_format_gives_the_same_mapped_rows(tmp_path, format):
    assert _rows(format, _write(tmp_path, format), split="test", fields={"question": "q"}) == ROWS


def test_a_csv_cell_stays_text_as_written(tmp_path):
    """CSV has no types: an inferred float would turn the answer "0.50" into 0.5."""
    rows = _rows("csv", _write(tmp_path, "csv"), fields={"question": "q"})
    assert [row["answer"] for row in rows] == ["2", "0.50"]


def test_a_folder_of_parquet_shards_reads_as_one_table(tmp_path):
    folder = tmp_path / "shards"
    folder.mkdir()
    FRAME.head(1).to_parquet(folder / "test-00000-of-00002.parquet")
    FRAME.tail(1).to_parquet(folder / "test-00001-of-00002.parquet")
    (folder / "README.md").write_text("not data\n")
    assert _rows("parquet", str(folder), fields={"question": "q"}) == ROWS


def test_a_saved_dataset_without_splits_reads_whole(tmp_path):
    import datasets

    datasets.Dataset.from_pandas(FRAME).save_to_disk(str(tmp_path / "one"))
    assert _rows("saved", str(tmp_path / "one"), fields={"question": "q"}) == ROWS


def test_a_cached_hub_dataset_is_read_offline(tmp_path):
    cache_hub_dataset(tmp_path / "cache", "someone/toy_math", "main", {"test": FRAME, "train": FRAME.head(1)})
    rows = _rows("hub", repo="someone/toy_math", config="main", split="test", cache_dir=str(tmp_path / "cache"),
                 fields={"question": "q"})
    assert rows == ROWS


def test_an_unmapped_field_is_read_from_its_own_column(tmp_path):
    frame = FRAME.rename(columns={"q": "question"}).drop(columns="level")
    assert _rows("jsonl", _write(tmp_path, "jsonl", frame)) == [{k: v for k, v in r.items() if k != "level"}
                                                                 for r in ROWS]


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match="file not found") as error:
        _rows("jsonl", str(tmp_path / "absent.jsonl"))
    assert (error.value.file, error.value.field) == (tmp_path / "absent.jsonl", "args.path")


def test_an_unknown_format_lists_the_formats(tmp_path):
    with pytest.raises(DataError, match="unknown format 'xlsx'.*saved, parquet, jsonl, csv, hub") as error:
        _rows("xlsx", _write(tmp_path, "csv"))
    assert error.value.field == "args.format"


def test_a_missing_split_names_the_splits_there_are(tmp_path):
    with pytest.raises(DataError, match="no split 'validation'.*The splits are: test, train") as error:
        _rows("saved", _write(tmp_path, "saved"), split="validation", fields={"question": "q"})
    assert error.value.field == "args.split" and error.value.file.endswith("data.saved")
    with pytest.raises(DataError, match="several splits: name one"):
        _rows("saved", _write(tmp_path, "saved"), fields={"question": "q"})
    cache_hub_dataset(tmp_path / "cache", "someone/toy_math", "main", {"test": FRAME})
    with pytest.raises(DataError, match="no split 'train'.*The splits are: test"):
        _rows("hub", repo="someone/toy_math", split="train", cache_dir=str(tmp_path / "cache"))


def test_a_missing_field_names_the_columns_there_are(tmp_path):
    path = _write(tmp_path, "parquet")
    with pytest.raises(DataError, match="no column 'question' for the field 'question'.*columns are: q, answer, "
                                       "level.*fields: {question: <column>}") as error:
        _rows("parquet", path)
    assert (error.value.file, error.value.field) == (path, "args.fields.question")
    with pytest.raises(DataError, match="no column 'topic' for the field 'subject'"):
        _rows("parquet", path, fields={"question": "q", "subject": "topic"})  # an optional field mapped wrongly


def test_a_column_of_the_wrong_type_is_named(tmp_path):
    path = _write(tmp_path, "jsonl", FRAME.assign(answer=[2, 1]))
    with pytest.raises(DataError, match="column 'answer' holds int64, where the field 'answer' needs str") as error:
        _rows("jsonl", path, fields={"question": "q"})
    assert error.value.field == "args.fields.answer"


@pytest.mark.parametrize(("args", "field", "message"), [
    ({"fields": ["q"]}, "args.fields", "fields must map field names to column names"),
    ({"fields": {"question": 3}}, "args.fields", "fields must map field names to column names"),
    ({"split": 1}, "args.split", "split must be a string, got int"),
    ({"fields": {"questoin": "q"}}, "args.fields.questoin", "fields maps 'questoin', which this loader does not"),
    ({"repo": "a/b"}, "args.path", "give path, not repo"),
])
def test_arguments_of_the_wrong_kind_are_named(tmp_path, args, field, message):
    with pytest.raises(DataError, match=message) as error:
        _rows("jsonl", _write(tmp_path, "jsonl"), **args)
    assert error.value.field == field


def test_a_file_not_in_its_format_is_named(tmp_path):
    path = _write(tmp_path, "csv")
    with pytest.raises(DataError, match="cannot be read as jsonl") as error:
        _rows("jsonl", path, fields={"question": "q"})
    assert error.value.file == tmp_path / "data.csv"


def test_an_uncached_hub_dataset_says_how_to_fill_the_cache(tmp_path):
    cache_hub_dataset(tmp_path / "cache", "someone/toy_math", "main", {"test": FRAME})
    with pytest.raises(DataError, match="'someone/toy_math' is not in the cache .*configs cached: main.*never "
                                       "downloaded") as error:
        _rows("hub", repo="someone/toy_math", config="other", cache_dir=str(tmp_path / "cache"))
    assert "datasets.load_dataset('someone/toy_math', 'other', cache_dir=" in error.value.hint
    with pytest.raises(DataError, match="'someone/absent' is not in the cache"):
        _rows("hub", repo="someone/absent", cache_dir=str(tmp_path / "cache"))
    with pytest.raises(DataError, match="give repo"):
        _rows("hub", str(tmp_path / "data.jsonl"))


def test_a_file_fingerprint_is_stable_across_reads_and_follows_the_content(tmp_path):
    path = _write(tmp_path, "jsonl")
    args = {"format": "jsonl", "path": "data.jsonl", "fields": {"question": "q"}}

    def fingerprint() -> str:
        return resolve_dataset("d", "family.hf", args, {}, tmp_path).fingerprint

    first = fingerprint()
    _rows("jsonl", path, fields={"question": "q"})
    assert fingerprint() == first
    _write(tmp_path, "jsonl", FRAME.assign(answer=["2", "0.5"]))
    assert fingerprint() != first


def test_a_hub_fingerprint_is_stable_across_reads_and_follows_the_cached_files(tmp_path):
    folder = cache_hub_dataset(tmp_path / "cache", "someone/toy_math", "main", {"test": FRAME})
    args = {"format": "hub", "repo": "someone/toy_math", "split": "test", "cache_dir": str(tmp_path / "cache")}
    first = resolve_dataset("d", "family.hf", args, {}, tmp_path).fingerprint
    assert hub_fingerprint(args) is not None and hub_fingerprint({"format": "jsonl", "path": "x"}) is None
    _rows("hub", repo="someone/toy_math", split="test", cache_dir=str(tmp_path / "cache"), fields={"question": "q"})
    assert resolve_dataset("d", "family.hf", args, {}, tmp_path).fingerprint == first
    (folder / "toy_math-test.arrow").unlink()
    cache_hub_dataset(tmp_path / "cache2", "someone/toy_math", "main", {"test": FRAME.head(1)})
    (tmp_path / "cache2" / "someone___toy_math/main/0.0.0/0123abcd/toy_math-test.arrow").rename(
        folder / "toy_math-test.arrow")
    assert resolve_dataset("d", "family.hf", args, {}, tmp_path).fingerprint != first
