"""A predictions table checked against its task's `PredictionsSchema`, every problem a `DataError` with the file,
line (or row) and column. Apart from the schema's declarations so that a task module stays free of pandas."""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import DataError
from harness.predictions_schema import Column, PredictionsSchema

_KIND_WORDS = {"integer": "an integer", "number": "a number", "text": "a text", "boolean": "true or false",
               "id": "an id (an integer or a text)"}


def checked_table(schema: PredictionsSchema, table: pd.DataFrame, samples: Iterable[Hashable] | None, *,
                  file: Path | None = None, lines: Sequence[int] | None = None) -> pd.DataFrame:
    """`table` with its columns in their declared kinds and only its test samples' rows, or a `DataError` naming
    the first problem. `samples`: the instance's test sample ids (None: the task cannot list them, and only the
    table's own consistency is checked). `lines`: the file line of each row, for a table read from a text file."""
    where = _Where(file, lines)
    checked = table.copy()
    for column in schema.columns:
        if column.may_be_empty and not column.prefix and column.name not in table.columns:
            checked[column.name] = None if column.kind == "text" else np.nan  # left out: empty in every row
            continue
        for name in _names_of(schema, column, table, where):
            checked[name] = _in_kind(table[name], column, where)
    return _test_rows(schema, checked, samples, where)


def _names_of(schema: PredictionsSchema, column: Column, table: pd.DataFrame, where: _Where) -> list[str]:
    if column.prefix:
        names = [str(name) for name in table.columns if str(name).startswith(column.name)]
        if not names:
            raise where.error(f"no column named {column.name}<...>", column.name, hint=schema.hint())
        return names
    if column.name not in table.columns:
        found = ", ".join(map(str, table.columns)) or "none"
        raise where.error(f"no column {column.name!r} (found: {found})", column.name, hint=schema.hint())
    return [column.name]


def _test_rows(schema: PredictionsSchema, table: pd.DataFrame, samples: Iterable[Hashable] | None,
               where: _Where) -> pd.DataFrame:
    """The rows of the test samples (the others refused, or left out where the schema allows them)."""
    twice = np.flatnonzero(table.duplicated(schema.key).to_numpy())
    if twice.size:
        row = table.iloc[twice[0]]
        which = ", ".join(f"{name} {_shown(row[name])}" for name in schema.key)
        raise where.error(f"a second row for {which}", schema.sample, row=int(twice[0]),
                          hint="Give each " + " and ".join(schema.key) + " one row.")
    if samples is None:
        return table
    ids = next(c.kind == "id" for c in schema.columns if c.name == schema.sample)
    known = pd.Index([as_id(s) for s in samples] if ids else list(samples))
    unknown = np.flatnonzero(~table[schema.sample].isin(known).to_numpy())
    if unknown.size and schema.other_samples_ok:
        table = table[table[schema.sample].isin(known).to_numpy()]  # by position: index labels may repeat
    elif unknown.size:
        raise where.error(f"sample {_shown(table[schema.sample].iloc[unknown[0]])} is not a test sample of this "
                          f"dataset ({unknown.size} such row{'s' * (unknown.size > 1)})", schema.sample,
                          row=int(unknown[0]))
    if schema.every_sample:
        _check_complete(schema, table, known, where)
    return table


def _check_complete(schema: PredictionsSchema, table: pd.DataFrame, known: pd.Index, where: _Where) -> None:
    """Every test sample has a row in every `per` group. Counted at once (a table can hold a million pixel rows in
    thousands of groups); only a group that falls short is looked at sample by sample."""
    pairs = table[[*schema.per, schema.sample]].drop_duplicates()  # every sample in them is known: checked before
    if pairs.empty and len(known):
        raise where.error(f"no rows, and {len(known)} test sample(s) to answer", schema.sample,
                          hint="Give every test sample a row.")
    if schema.per:
        counts = pairs.groupby(list(schema.per), sort=False).size()
        short = counts.index[counts.to_numpy() < len(known)]
        if short.empty:
            return
        group = _tuple(short[0])
    elif len(pairs) < len(known):
        group = ()
    else:
        return
    rows = pairs
    for name, value in zip(schema.per, group, strict=True):
        rows = rows[rows[name] == value]
    absent = known.difference(pd.Index(rows[schema.sample].unique()), sort=False)
    label = ", ".join(f"{name} {_shown(value)}" for name, value in zip(schema.per, group, strict=True))
    scope = f" for {label}" if label else ""
    raise where.error(f"{absent.size} test sample(s) have no row{scope}, e.g. {_shown(absent[0])}",
                      schema.sample, hint="Give every test sample a row.")


@dataclass(frozen=True)
class _Where:
    """Where a row of the table stands, for an error: a file's line, or its row counting from 0."""

    file: Path | None
    lines: Sequence[int] | None

    def error(self, message: str, column: str, *, row: int | None = None, hint: str | None = None) -> DataError:
        line = None
        if row is not None:
            if self.lines is not None:
                line = int(self.lines[row])
            else:
                message = f"row {row} (counting from 0): {message}"
        subject = "" if self.file is not None else "the predictions table: "
        return DataError(subject + message, file=self.file, line=line, field=column, hint=hint)


def _shown(value: object) -> str:
    """A value as a user wrote it: `7` and `'a7'`, not `np.int64(7)`."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _tuple(group: object) -> tuple[object, ...]:
    return group if isinstance(group, tuple) else (group,)


def _in_kind(values: pd.Series, column: Column, where: _Where) -> pd.Series:
    empty = values.isna().to_numpy()
    if empty.any() and not column.may_be_empty:
        count = int(empty.sum())
        raise where.error(f"holds an empty value (NaN or null; {count} such row{'s' * (count > 1)})",
                          str(values.name), row=int(np.flatnonzero(empty)[0]),
                          hint=f"Give each row {_KIND_WORDS[column.kind]}; leave out a sample you cannot answer.")
    if column.kind == "text":
        bad = [i for i, value in enumerate(values) if not empty[i] and not isinstance(value, str)]
        if bad:
            raise where.error(f"{_shown(values.iloc[bad[0]])} is not a text", str(values.name), row=bad[0])
        return values
    if column.kind == "id":
        return _as_ids(values, where)
    numbers = _as_numbers(values, column, where)
    finite = np.isfinite(numbers) | empty
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise where.error(f"holds {values.iloc[row]}, not a finite number", str(values.name), row=row,
                          hint="Predictions must be finite numbers: leave out a sample you cannot score.")
    if column.kind == "number":
        return pd.Series(numbers, index=values.index, name=values.name)
    whole = (numbers == np.round(numbers)) | empty
    if column.kind == "boolean":
        whole &= np.isin(numbers, (0.0, 1.0)) | empty
    if not whole.all():
        row = int(np.flatnonzero(~whole)[0])
        raise where.error(f"{_shown(values.iloc[row])} is not {_KIND_WORDS[column.kind]}", str(values.name), row=row)
    if empty.any():
        return pd.Series(numbers, index=values.index, name=values.name)
    kind = bool if column.kind == "boolean" else np.int64
    return pd.Series(numbers.astype(kind), index=values.index, name=values.name)


def as_id(value: object) -> str:
    """An id as text: `7`, `7.0` and `"7"` are one id."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value
    raise TypeError


def _as_ids(values: pd.Series, where: _Where) -> pd.Series:
    ids = []
    for row, value in enumerate(values):
        try:
            ids.append(as_id(value))
        except TypeError:
            raise where.error(f"{_shown(value)} is not {_KIND_WORDS['id']}", str(values.name), row=row) from None
    return pd.Series(ids, index=values.index, name=values.name, dtype=object)


def _as_numbers(values: pd.Series, column: Column, where: _Where) -> np.ndarray:
    """The values as floats: numbers only (a text that looks like one is refused: the file was written wrong)."""
    if values.dtype.kind in "biuf":
        return values.to_numpy(np.float64)
    bad = [i for i, value in enumerate(values)
           if not (value is None or isinstance(value, (int, float, np.number)))]
    if bad:
        raise where.error(f"{_shown(values.iloc[bad[0]])} is not {_KIND_WORDS[column.kind]}", str(values.name),
                          row=bad[0])
    return pd.to_numeric(values).to_numpy(np.float64)
