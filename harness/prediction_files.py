"""Bring-your-own predictions files (`predictions:` in a suite), read and scored so that every problem
names the file: a task's scoring code knows columns and rows, not where the table came from.

Declared policy: a NaN or infinite number in such a file is an error naming its row and column, not
a score. Scored, it gave a NaN metric stored as an ok run; no metric gives it a meaning, and a method
that wants to abstain on a sample leaves the sample out, which its task then reports.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from harness.contracts import Instance, Metric, Task
from harness.errors import DataError, HarnessError

_SCORE_HINT = "Each row is one test sample; the task's README lists the columns its predictions table needs."


def score_predictions_file(task: Task, instance: Instance, path: Path,
                           metrics: Mapping[str, Metric]) -> dict[str, float]:
    """The metrics of the predictions in `path`; a `DataError` naming the file for anything wrong with it."""
    predictions = _read(path)
    _check_finite(predictions, path)
    try:
        return task.score(instance, predictions, metrics)
    except HarnessError as exc:
        if exc.file is not None:
            raise
        raise dataclasses.replace(exc, file=path) from exc
    except Exception as exc:  # noqa: BLE001 - whatever the task's checks raise, the user needs the file
        raise DataError(f"cannot be scored ({type(exc).__name__}: {_shortened(str(exc))})", file=path,
                        hint=_SCORE_HINT) from exc


def _read(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise DataError(f"is not a readable Parquet file ({exc})", file=path,
                        hint="Write it with pandas.DataFrame.to_parquet.") from exc


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
