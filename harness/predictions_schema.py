"""A task's predictions table, declared once and checked by the engine.

Every predictions table passes here before a task scores it: the one a method's output became, a stored
one re-scored, and a user's bring-your-own file (`predictions:` in a suite). A task states its columns,
which column names the test sample a row answers, and how rows group (one row per sample, per sample and
condition, or several numbered answers per sample); the engine checks a table against that and reports the
first problem with its file, line (CSV, JSONL) or row (Parquet, a table in memory) and column. A task's
`score` then reads a table it may trust, and no family writes these checks again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# "id": a sample's name, an integer or a text (a generated set numbers its samples, a user's file names them):
# compared as text, so a stored table of integer ids and a user's file of names are both read.
ColumnKind = Literal["integer", "number", "text", "boolean", "id"]


@dataclass(frozen=True)
class Column:
    """One column: its name (or, with `prefix`, the start of several names, e.g. `consult_` for one column per
    expert), its kind, and whether a row may leave it empty (NaN, null) where the task gives that a meaning; a
    table may then leave the column out, every row empty."""

    name: str
    kind: ColumnKind
    may_be_empty: bool = False
    prefix: bool = False
    description: str = ""


@dataclass(frozen=True)
class PredictionsSchema:
    """What a task's predictions table holds.

    `sample` names the column with the test sample's id; rows are unique per (`per` columns, sample,
    `repeat` column) and, where `every_sample`, each sample has a row in every `per` group (every
    condition, every operating point). A method that abstains on a sample leaves it out only where
    `every_sample` is false; its task then reports it. Where `other_samples_ok`, rows of samples outside the
    test split (a file that scores every point of a dataset) are left out rather than refused.
    """

    columns: tuple[Column, ...]
    sample: str
    per: tuple[str, ...] = ()
    repeat: str | None = None
    every_sample: bool = True
    other_samples_ok: bool = False

    def __post_init__(self) -> None:
        named = {column.name for column in self.columns if not column.prefix}
        for key in (self.sample, *self.per, *([self.repeat] if self.repeat else [])):
            if key not in named:
                raise ValueError(f"predictions schema: key column {key!r} is not one of its columns")

    @property
    def key(self) -> list[str]:
        return [*self.per, self.sample, *([self.repeat] if self.repeat else [])]

    def described(self) -> str:
        """The columns in a line, for a hint or a task's README."""
        return ", ".join(f"{c.name}{'*' if c.prefix else ''} ({c.kind}{', may be empty' if c.may_be_empty else ''})"
                         for c in self.columns)

    def hint(self) -> str:
        return f"A predictions table of this task has columns {self.described()}."
