"""Learning curves a run records (`ctx.record_curve`, `ctx.record_point`): named series of (step, value).

A curve's steps are finite and strictly increasing (an epoch, an environment step, an in-context
position), so a curve is a function of its step and two seeds can be aligned on it. Its values may be
NaN or infinite: a diverged loss is a result, and the derived metrics (`harness.curve_metrics`) say what
they make of it. A run's curves are one Parquet file in long form (one row per point) beside its
predictions, named by the run record's `curves` field.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import DataError
from harness.parquet import write_table
from harness.spreadsheet_cells import unquoted_text

if TYPE_CHECKING:  # pandas loads on first read or write: `harness --help` and `import harness` stay light
    import pandas as pd

COLUMNS = ("curve", "step", "value", "unit", "higher_is_better")
CURVES_FILE = "curves.csv"  # a rendered report's curves, beside its runs.csv


class CurveError(ValueError):
    """A curve a method recorded is malformed: raised at the call, so the run fails naming the curve."""


@dataclass
class Curve:
    """One named series; `append` and `Curve.of` check every step, so a `Curve` is always well formed."""

    name: str
    unit: str = ""
    higher_is_better: bool | None = None  # None: a curve without a direction (a learning rate), never ranked
    steps: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, name: str, steps: Iterable[float], values: Iterable[float], unit: str = "",
           higher_is_better: bool | None = None) -> "Curve":
        steps, values = list(steps), list(values)
        if len(steps) != len(values):
            raise CurveError(f"curve '{name}' has {len(steps)} steps but {len(values)} values; give one value "
                             "per step")
        curve = cls(name, unit, higher_is_better)
        for step, value in zip(steps, values, strict=True):
            curve.append(step, value)
        return curve

    def append(self, step: float, value: float) -> None:
        """Add the point (step, value); the step must be finite and larger than the last one."""
        step, value = float(step), float(value)
        if not math.isfinite(step):
            raise CurveError(f"curve '{self.name}': step {step} is not a finite number")
        if self.steps and step <= self.steps[-1]:
            raise CurveError(f"curve '{self.name}': step {step:g} does not follow step {self.steps[-1]:g}; "
                             "steps must strictly increase")
        self.steps.append(step)
        self.values.append(value)


def write_curves(curves: Mapping[str, Curve], path: Path) -> None:
    """All of a run's curves as one long Parquet table (`COLUMNS`)."""
    write_table(_long_table(curves), path)


def read_curves(path: Path) -> dict[str, Curve]:
    """The curves `write_curves` wrote, by name; a `DataError` naming the file when it cannot be read."""
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise DataError(f"is not a readable curves file ({exc})", file=path,
                        hint="A run's curves file is written by the worker beside its record; run it again.") from exc
    return _curves_of_table(frame, path)


def curves_export(by_run: Mapping[str, Mapping[str, Curve]]) -> pd.DataFrame:
    """Several runs' curves as one long table with a `run_id` column: a report's `curves.csv`, which renders
    its curve plots again without the store (`harness report --runs`)."""
    import pandas as pd

    tables = [_long_table(curves).assign(run_id=run_id) for run_id, curves in by_run.items()]
    return pd.concat(tables, ignore_index=True)[["run_id", *COLUMNS]]


def curves_of_export(path: Path) -> dict[str, dict[str, Curve]]:
    """Run id -> curves, from a `curves_export` written as CSV."""
    import pandas as pd

    frame = unquoted_text(pd.read_csv(path, dtype={"run_id": "string", "curve": "string", "unit": "string"}))
    frame["unit"] = frame["unit"].fillna("")  # CSV writes an empty unit and a NaN value alike
    return {str(run_id): _curves_of_table(rows, path) for run_id, rows in frame.groupby("run_id", sort=False)}


def _long_table(curves: Mapping[str, Curve]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({
        "curve": [c.name for c in curves.values() for _ in c.steps],
        "step": [s for c in curves.values() for s in c.steps],
        "value": [v for c in curves.values() for v in c.values],
        "unit": [c.unit for c in curves.values() for _ in c.steps],
        "higher_is_better": pd.array([c.higher_is_better for c in curves.values() for _ in c.steps],
                                     dtype="boolean"),
    }, columns=list(COLUMNS))


def _curves_of_table(frame: pd.DataFrame, path: Path) -> dict[str, Curve]:
    import pandas as pd

    absent = [c for c in COLUMNS if c not in frame.columns]
    if absent:
        raise DataError(f"lacks the column(s) {', '.join(absent)} of a curves table", file=path)
    curves = {}
    for name, rows in frame.groupby("curve", sort=False):
        direction = rows["higher_is_better"].iloc[0]
        try:
            curves[str(name)] = Curve.of(str(name), rows["step"], rows["value"], str(rows["unit"].iloc[0]),
                                         None if pd.isna(direction) else bool(direction))
        except CurveError as exc:
            raise DataError(str(exc), file=path) from None
    return curves
