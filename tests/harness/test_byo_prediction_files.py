"""Every problem with a bring-your-own predictions file names the file (and the row and column where it can),
and a NaN or infinite number in one is an error, not an ok run with a NaN metric."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.store import Store
from tests.harness.test_score import BYO_SUITE

SUITE = BYO_SUITE.replace("seeds: [0, 1]", "seeds: [0]")


def _good() -> pd.DataFrame:
    """toy.numbers(seed=0) scored by itself: a perfect predictions table."""
    return pd.DataFrame({"sample": np.arange(200), "score": np.random.default_rng(0).normal(0, 1, 200)})


def _with(column: str, row: int, value: object) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        frame = _good()
        frame.loc[row, column] = value
        frame.to_parquet(path)
    return write


def _frame(change: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable[[Path], None]:
    return lambda path: change(_good()).to_parquet(path)


def _truncated(path: Path) -> None:
    _good().to_parquet(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


BAD_FILES = {
    "text": lambda path: path.write_text("sample,score\n0,1.5\n"),
    "empty": lambda path: path.write_bytes(b""),
    "truncated": _truncated,
    "no score column": _frame(lambda f: f.drop(columns="score")),
    "no sample column": _frame(lambda f: f.drop(columns="sample")),
    "other column names": _frame(lambda f: f.rename(columns={"sample": "id", "score": "value"})),
    "text scores": _frame(lambda f: f.assign(score=f["score"].map(str))),
    "text sample ids": _frame(lambda f: f.assign(sample=f["sample"].map(lambda s: f"s{s}"))),
    "duplicated samples": _frame(lambda f: pd.concat([f, f])),
    "missing samples": _frame(lambda f: f.iloc[:10]),
    "no rows": _frame(lambda f: f.iloc[:0]),
    "NaN": _with("score", 3, np.nan),
    "inf": _with("score", 5, np.inf),
    "-inf": _with("score", 7, -np.inf),
}


@pytest.fixture
def path(tmp_path) -> Path:
    """Where the suite's template puts the predictions of seed 0."""
    path = tmp_path / "preds" / "theirs" / "easy" / "0.parquet"
    path.parent.mkdir(parents=True)
    return path


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_every_problem_with_a_predictions_file_names_it(case, cli, write_suite, store, path):
    BAD_FILES[case](path)
    code, _, _ = cli("score", str(write_suite(SUITE)), "--store", str(store))
    [record] = Store(store).records()
    assert code == 2 and record["status"] == "failed", record.get("metrics")
    assert str(path) in record["error"]


@pytest.mark.parametrize(("case", "row", "value"), [("NaN", 3, "an empty value"), ("inf", 5, "inf, not a finite"),
                                                   ("-inf", 7, "-inf, not a finite")])
def test_a_non_finite_score_is_an_error_naming_its_row_and_column(case, row, value, cli, write_suite, store, path):
    BAD_FILES[case](path)
    cli("score", str(write_suite(SUITE)), "--store", str(store))
    [record] = Store(store).records()
    assert f"{path}: score: row {row} (counting from 0): holds {value}" in record["error"]
