"""Bring your own experts: per-sample expert answers and labels made elsewhere (CIFAR-10H-style human labels,
or model outputs), from CSV or Parquet.

The samples file has an id column, the label, and feature columns (`feature_*`: the scorer's input, e.g. a
model's embedding or logits); the experts' answers are `expert_<name>` columns, in the same file or in a
second one (`experts_path`) joined on the id. Each expert's cost comes from the `costs` argument. Answers are
fixed, so an expert's expected loss is its realised loss and the oracle is the hindsight one.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from harness import DataError
from methods.deferral.data import checked_budgets
from methods.deferral.experts import RecordedExperts
from methods.deferral.problem import DeferralProblem, Kind


def read_table(path: Path) -> pd.DataFrame:
    """A CSV (.csv) or Parquet (.parquet, .pq) file; a `DataError` naming it for any other suffix or bad file."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path)
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise DataError(f"cannot be read as {suffix[1:]}: {exc}", file=path) from None
    raise DataError(f"unknown file type {suffix!r}", file=path, hint="Give a .csv or a .parquet file.")


def load_expert_table(path: Path, experts_path: Path | None = None, kind: Kind = "classification",
                      costs: Mapping[str, float] | None = None, model_cost: float = 0.0, id_column: str = "id",
                      label_column: str = "label", feature_prefix: str = "feature_",
                      expert_prefix: str = "expert_", budgets: Sequence[float] | None = None) -> DeferralProblem:
    path = Path(path)
    samples = read_table(path)
    _require_columns(samples, path, [id_column, label_column])
    _check_ids(samples, id_column, path)
    experts_file = path if experts_path is None else Path(experts_path)
    answers = samples if experts_path is None else _joined(samples, read_table(experts_file), id_column, path,
                                                           experts_file)
    feature_columns = [c for c in samples.columns if str(c).startswith(feature_prefix)]
    expert_columns = [c for c in answers.columns if str(c).startswith(expert_prefix)]
    if not feature_columns:
        raise DataError(f"no feature columns (names starting {feature_prefix!r})", file=path, field="feature_prefix",
                        hint="The scorer needs features: add feature_* columns, e.g. a model's logits.")
    if not expert_columns:
        raise DataError(f"no expert columns (names starting {expert_prefix!r})", file=experts_file,
                        field="expert_prefix")
    names = tuple(str(c)[len(expert_prefix):] for c in expert_columns)
    beta = _costs(costs or {}, names)
    x = np.column_stack([_numbers(samples[c], path) for c in feature_columns])
    if kind == "classification":
        labels = _numbers(samples[label_column], path)
        classes = np.unique(labels)
        y = np.searchsorted(classes, labels)
        predictions = np.column_stack([_labels(answers[c], classes, experts_file) for c in expert_columns])
    else:
        y = _numbers(samples[label_column], path)
        predictions = np.column_stack([_numbers(answers[c], experts_file) for c in expert_columns])
    panel = RecordedExperts(predictions, names, beta, kind)
    return DeferralProblem(path.stem, kind, x, y, panel, model_cost, ids=samples[id_column].to_numpy(),
                           budgets=checked_budgets(budgets))


def _require_columns(table: pd.DataFrame, path: Path, columns: list[str]) -> None:
    for column in columns:
        if column not in table.columns:
            raise DataError(f"no column {column!r} (found: {', '.join(map(str, table.columns))})", file=path,
                            field=column, hint="Name it with the loader's id_column / label_column arguments.")


def _check_ids(table: pd.DataFrame, id_column: str, path: Path) -> None:
    twice = table[id_column][table[id_column].duplicated()]
    if not twice.empty:
        raise DataError(f"id '{twice.iloc[0]}' appears more than once", file=path, field=id_column,
                        line=_line(path, int(twice.index[0])))


def _joined(samples: pd.DataFrame, experts: pd.DataFrame, id_column: str, path: Path, experts_path: Path
            ) -> pd.DataFrame:
    """The experts' rows in the samples' order; a `DataError` when either file has an id the other lacks."""
    _require_columns(experts, experts_path, [id_column])
    _check_ids(experts, id_column, experts_path)
    ours, theirs = pd.Index(samples[id_column]), pd.Index(experts[id_column])
    for lacking, where, other in ((ours.difference(theirs), experts_path, path),
                                  (theirs.difference(ours), path, experts_path)):
        if lacking.size:
            raise DataError(f"{lacking.size} id(s) of {other.name} are missing here, e.g. '{lacking[0]}'",
                            file=where, field=id_column, hint="Both files must hold the same sample ids.")
    return experts.set_index(id_column).loc[samples[id_column]].reset_index()


def _costs(costs: Mapping[str, float], names: tuple[str, ...]) -> np.ndarray:
    missing = [name for name in names if name not in costs]
    unknown = sorted(set(costs) - set(names))
    if missing or unknown:
        what = f"no cost for expert {missing[0]!r}" if missing else f"a cost for unknown expert {unknown[0]!r}"
        raise DataError(f"{what} (experts: {', '.join(names)})", field="costs",
                        hint="Give costs: {name: beta} for every expert_<name> column.")
    beta = np.array([costs[name] for name in names], dtype=np.float64)
    if (beta < 0).any() or not np.isfinite(beta).all():
        raise DataError(f"costs must be finite and non-negative, got {dict(costs)}", field="costs")
    return beta


def _numbers(column: pd.Series, path: Path) -> np.ndarray:
    values = pd.to_numeric(column, errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy())
    if bad.size:
        value = column.iloc[bad[0]]
        what = "a missing value" if pd.isna(value) else f"'{value}'"
        raise DataError(f"{what} in column '{column.name}' is not a number", file=path, field=str(column.name),
                        line=_line(path, int(bad[0])))
    return values.to_numpy(np.float64)


def _labels(column: pd.Series, classes: np.ndarray, path: Path) -> np.ndarray:
    values = _numbers(column, path)
    unknown = np.flatnonzero(~np.isin(values, classes))
    if unknown.size:
        raise DataError(f"answer '{column.iloc[unknown[0]]}' in column '{column.name}' is not one of the labels",
                        file=path, field=str(column.name), line=_line(path, int(unknown[0])))
    return np.searchsorted(classes, values)


def _line(path: Path, row: int) -> int | None:
    """The file line of a table row: a CSV's header is line 1; a Parquet file has no lines."""
    return row + 2 if path.suffix.lower() == ".csv" else None
