"""The family's datasets: a real format (a CSV of labelled points, your own file) and generated points.

A loader argument named `path` (or `*_path`) arrives as an absolute path under the data root
(`--data-root`, else $HARNESS_DATA_ROOT, else ./data), and the file's content enters the dataset's
fingerprint: a changed file means new runs. Malformed content is a `DataError` naming the file and line,
raised when the harness loads every dataset before the first run.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

from harness import DataError
from methods.my_family.task import Points


def load_points_csv(path: Path, label_column: str = "label") -> Points:
    """A CSV with a header line: numeric feature columns and a 0/1 `label_column`."""
    path = Path(path)
    table = pd.read_csv(path)
    if label_column not in table.columns:
        raise DataError(f"no column {label_column!r} (found: {', '.join(map(str, table.columns))})", file=path,
                        field="label_column", hint="Name the label column with the loader's label_column argument.")
    labels = table.pop(label_column)
    _require(labels.isin([0, 1]), labels, "0 or 1", path)
    features = table.apply(pd.to_numeric, errors="coerce")
    for column in table.columns:
        _require(features[column].notna(), table[column], "a number", path)
    return Points(path.stem, features.to_numpy(np.float64), labels.to_numpy(np.int64))


def _require(valid: pd.Series, values: pd.Series, expected: str, path: Path) -> None:
    """A `DataError` at the first row of `values` that is not `valid` (line 1 is the header)."""
    bad = np.flatnonzero(~valid.to_numpy())
    if bad.size:
        raise DataError(f"'{values.iloc[bad[0]]}' in column '{values.name}' is not {expected}", file=path,
                        line=int(bad[0]) + 2)


def gaussian_blobs(num_points: int = 400, dims: int = 2, separation: float = 2.0, seed: int = 0) -> Points:
    """Two unit-variance Gaussians `separation` apart along the first axis, half the points positive.

    The best possible AUROC is Phi(separation / sqrt 2) (92.1 at separation 2), a reference for a method.
    """
    if num_points < 8 or dims < 1:
        raise DataError(f"need num_points >= 8 and dims >= 1, got {num_points} and {dims}", field="num_points")
    rng = np.random.default_rng(seed)
    y = (np.arange(num_points) % 2).astype(np.int64)
    x = rng.normal(size=(num_points, dims))
    x[:, 0] += np.where(y == 1, separation / 2, -separation / 2)
    return Points(f"blobs-{separation:g}", x, y)


def bayes_auroc(separation: float) -> float:
    """The AUROC (x100) of the optimal score on `gaussian_blobs(separation=...)`: Phi(separation / sqrt 2)."""
    return 100.0 * float(norm.cdf(separation / np.sqrt(2.0)))
