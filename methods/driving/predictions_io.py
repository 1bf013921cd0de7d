"""The predictions file: one planned ego trajectory per keyframe, for stored and bring-your-own runs.

Table (Parquet, what `harness` stores and what a suite's `predictions:` entry points at), one
row per keyframe (`sample_token`), 13 columns:

    sample_token  str    the nuScenes sample token of the keyframe
    x1 ... x6     float  lateral position (m, + right) at 0.5, 1.0, ..., 3.0 s in that keyframe's LiDAR frame
    y1 ... y6     float  forward position (m, + ahead) at the same steps

JSON, for planners that write SparseDrive-style result files: an object mapping each sample
token to its 6 waypoints, `{"plans": {"<sample_token>": [[x1, y1], ..., [x6, y6]], ...}}`.
Convert it with `python -m methods.driving.predictions_io plans.json plans.parquet`.
The engine checks a table against `OpenLoopPlanning.predictions_schema` before scoring: rows for
keyframes the dataset does not hold, or whose 3 s future is not logged, are left out; every scored
keyframe needs one row of finite numbers.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from harness import DataError

STEPS = 6
X_COLUMNS = [f"x{i}" for i in range(1, STEPS + 1)]
Y_COLUMNS = [f"y{i}" for i in range(1, STEPS + 1)]
COLUMNS = ["sample_token", *X_COLUMNS, *Y_COLUMNS]
_HINT = "A predictions table has columns sample_token, x1..x6, y1..y6 (see methods/driving/predictions_io.py)."


def plans_to_table(sample_tokens: np.ndarray, plans: np.ndarray) -> pd.DataFrame:
    """The predictions table of (N, 6, 2) plans, one row per token."""
    plans = np.asarray(plans, dtype=np.float64)
    frame = pd.DataFrame({"sample_token": np.asarray(sample_tokens).astype(str)})
    for i in range(STEPS):
        frame[X_COLUMNS[i]] = plans[:, i, 0]
    for i in range(STEPS):
        frame[Y_COLUMNS[i]] = plans[:, i, 1]
    return frame


def table_to_plans(table: pd.DataFrame, sample_tokens: np.ndarray) -> np.ndarray:
    """(N, 6, 2) plans for `sample_tokens` in their order from a checked table (one row per token at most, finite
    waypoints: `OpenLoopPlanning.predictions_schema`); NaN where a token has no row (an unscored keyframe)."""
    rows = pd.Index(table["sample_token"]).get_indexer(np.asarray(sample_tokens).astype(str))
    values = table[X_COLUMNS + Y_COLUMNS].to_numpy(dtype=np.float64)
    plans = np.full((rows.size, STEPS, 2), np.nan)
    found = rows >= 0
    plans[found, :, 0] = values[rows[found], :STEPS]
    plans[found, :, 1] = values[rows[found], STEPS:]
    return plans


def read_predictions(path: str | Path) -> pd.DataFrame:
    """A predictions table from Parquet, or from the JSON form described above."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            plans = document["plans"]
            tokens = list(plans)
            array = np.asarray([plans[t] for t in tokens], dtype=np.float64).reshape(len(tokens), STEPS, 2)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(f"is not a plans JSON file ({exc})", file=path,
                            hint='Write {"plans": {"<sample_token>": [[x, y] x 6], ...}}.') from None
        return plans_to_table(np.asarray(tokens), array)
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise DataError(f"is not a readable Parquet file ({exc})", file=path, hint=_HINT) from None


def main(argv: list[str] | None = None) -> int:
    """`python -m methods.driving.predictions_io IN.json OUT.parquet`: convert a plans file."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m methods.driving.predictions_io IN.json|IN.parquet OUT.parquet", file=sys.stderr)
        return 3
    try:
        table = read_predictions(args[0])
    except DataError as exc:
        print(exc, file=sys.stderr)
        return 3
    table.to_parquet(args[1], index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
