"""A predictions table read back against the truth: per column and evaluated session, the target array and
the prediction array of the same shape, which every metric of the family reads.

The predictions table (`NeuralEncoding.predictions_schema`) has one row per predicted value: `column`, `session`,
`trial` (position among the session's test trials), `time` (bin), `unit` (neuron, or behaviour channel),
`prediction`; the engine has checked its columns, kinds and finiteness, and that no value comes twice.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness import DataError
from methods.neural_encoding.problem import EncodingTruth, Target


@dataclass(frozen=True)
class ScoredColumns:
    # column -> per session (target, prediction); a column left out was not predicted
    pairs: dict[str, list[tuple[Target, np.ndarray]]]


def table_of(column: str, session: int, target: Target, prediction: np.ndarray) -> pd.DataFrame:
    """The rows of one (column, session) prediction array, in (trial, time, unit) order."""
    trials = np.arange(prediction.shape[0])
    trial, time, unit = (a.ravel() for a in np.meshgrid(trials, target.times, target.units, indexing="ij"))
    return pd.DataFrame({"column": column, "session": np.int32(session), "trial": trial.astype(np.int32),
                         "time": time.astype(np.int32), "unit": unit.astype(np.int32),
                         "prediction": prediction.astype(np.float32).ravel()})


def scored_columns(truth: EncodingTruth, predictions: pd.DataFrame) -> ScoredColumns:
    """Aligns the table with the targets; a `DataError` names an unknown column or session, or a (column,
    session) whose rows do not cover its targets' trials x times x units."""
    pairs: dict[str, list[tuple[Target, np.ndarray]]] = {}
    for (column, session), rows in predictions.groupby(["column", "session"], sort=True):
        targets = truth.targets.get(str(column))
        if targets is None or not 0 <= int(session) < len(targets):
            raise DataError(f"predictions for an unknown column or session: {column!r}, {session}", field="column")
        target = targets[int(session)]
        shape = target.values.shape
        rows = rows.sort_values(["trial", "time", "unit"])
        expected = table_of(str(column), int(session), target, np.zeros(shape))
        if len(rows) != len(expected) or not all(
                np.array_equal(rows[key].to_numpy(), expected[key].to_numpy()) for key in ("trial", "time", "unit")):
            raise DataError(f"column {column!r}, session {session}: the rows do not cover the {shape[0]} trials x "
                            f"{shape[1]} time bins x {shape[2]} units exactly once", field="trial")
        pairs.setdefault(str(column), []).append((target, rows["prediction"].to_numpy(np.float64).reshape(shape)))
    for column, found in pairs.items():
        if len(found) != len(truth.targets[column]):
            raise DataError(f"column {column!r} is predicted for {len(found)} of {len(truth.targets[column])} "
                            "sessions", field="session")
    return ScoredColumns(pairs)
