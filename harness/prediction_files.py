"""Bring-your-own predictions files (`predictions:` in a suite), read and scored so that every problem
names the file: a task's scoring code knows columns and rows, not where the table came from.

Declared policy: a NaN or infinite number in such a file is an error naming its row and column, not
a score. Scored, it gave a NaN metric stored as an ok run; no metric gives it a meaning, and a method
that wants to abstain on a sample leaves the sample out, which its task then reports.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import DataError, HarnessError
from harness.json_lines import json_objects
from harness.predictions_schema import PredictionsSchema
from harness.run_inputs import RunInputs

_SCORE_HINT = "Each row is one test sample; the task's README lists the columns its predictions table needs."
_SUFFIXES = ".parquet, .pq, .csv or .jsonl"


def score_predictions_file(inputs: RunInputs, path: Path) -> dict[str, float]:
    """The metrics of the predictions in `path`; a `DataError` naming the file (and its line or row, and the
    column) for anything wrong with it."""
    table, lines = read_predictions_file(path, inputs.task.predictions_schema)
    if inputs.task.predictions_schema is None:
        _check_finite(table, path)
    checked = inputs.checked(table, file=path, lines=lines)
    try:
        return inputs.score(checked)
    except HarnessError as exc:
        if exc.file is not None:
            raise
        raise dataclasses.replace(exc, file=path) from exc
    except Exception as exc:  # noqa: BLE001 - whatever the task's checks raise, the user needs the file
        raise DataError(f"cannot be scored ({type(exc).__name__}: {_shortened(str(exc))})", file=path,
                        hint=_SCORE_HINT) from exc


def read_predictions_file(path: Path, schema: PredictionsSchema | None = None
                          ) -> tuple[pd.DataFrame, list[int] | None]:
    """The table in `path` and, for a text file, the line each row stands on (a CSV's header is line 1). A
    CSV's text columns (by `schema`) stay texts: an answer `4` is the text "4", not the number."""
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path), None
        if suffix == ".csv":
            table = _read_csv(path, schema)
            return table, list(range(2, len(table) + 2))
    except (OSError, ValueError, pd.errors.ParserError) as exc:  # pyarrow's errors derive from the first two
        raise DataError(f"is not a readable {suffix[1:]} file ({exc})", file=path,
                        hint="Write it with pandas.DataFrame.to_parquet or to_csv(index=False).") from exc
    if suffix == ".jsonl":
        rows = list(json_objects(path, keys=None))  # the task's schema names a missing column
        return pd.DataFrame([row for _, row in rows]), [number for number, _ in rows]
    raise DataError(f"unknown kind of predictions file {suffix!r}", file=path, hint=f"Give a {_SUFFIXES} file.")


def _read_csv(path: Path, schema: PredictionsSchema | None) -> pd.DataFrame:
    """A CSV's text columns (by `schema`) stay texts (an answer `4` is the text "4"); in a numeric column that
    pandas left as texts, every value that reads as a number becomes one, so the check names the one that does
    not, with its line."""
    declared = {c.name: c.kind for c in (schema.columns if schema else ()) if not c.prefix}
    texts = {name: str for name, kind in declared.items() if kind in ("text", "id")}
    table = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=texts)
    for name, kind in declared.items():
        if kind not in ("text", "id") and name in table.columns and table[name].dtype.kind not in "biuf":
            table[name] = [_number_or_text(value) for value in table[name]]
    return table


def _number_or_text(value: object) -> object:
    try:
        return float(value)  # type: ignore[arg-type]  # a text or NaN, as pandas read it
    except ValueError:
        return value


def _check_finite(predictions: pd.DataFrame, path: Path) -> None:
    for column in predictions.columns:
        values = predictions[column].to_numpy()
        if values.dtype.kind not in "fc":
            continue
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise DataError(
                f"row {bad[0]} (counting from 0) holds {values[bad[0]]} ({bad.size} such row{'s' * (bad.size > 1)})",
                file=path, field=str(column),
                hint="Predictions must be finite numbers: leave out a sample you cannot score.",
            )


def _shortened(text: str, limit: int = 200) -> str:
    """A task's message can list every missing sample id; the first ones say enough."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."
