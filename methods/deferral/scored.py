"""A predictions table read back against the truth: the consulted sets and decisions of each operating point,
aligned with the test samples, which every metric of the family reads."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from harness import DataError
from methods.deferral.losses import expected_model_loss
from methods.deferral.problem import AllocationTruth

BASE_COLUMNS = ("point", "sample", "decision", "model_answer")


def consult_column(entity: str) -> str:
    return f"consult_{entity}"


@dataclass(frozen=True)
class OperatingPoint:
    consulted: np.ndarray  # bool (n, E)
    decision: np.ndarray   # (n,)


@dataclass(frozen=True)
class ScoredAllocation:
    """The truth and a method's operating points (point 0 first: the method as configured)."""

    truth: AllocationTruth
    points: tuple[OperatingPoint, ...]
    model_answer: np.ndarray  # (n,) entity 0's answers at point 0

    @property
    def main(self) -> OperatingPoint:
        return self.points[0]

    @cached_property
    def expected_costs(self) -> np.ndarray:
        """(n, E) exact E[c_j | x]: the method's entity-0 answers and the panel's competence map."""
        truth = self.truth
        model = expected_model_loss(truth.kind, self.model_answer, truth.y, truth.posterior)
        return np.column_stack([model, truth.expert_expected_loss]) + truth.costs[None, :]


def scored_allocation(truth: AllocationTruth, predictions: pd.DataFrame) -> ScoredAllocation:
    """The table's operating points aligned with `truth.sample`; a `DataError` names a missing column, a
    sample missing or given twice, or a gap in the points."""
    needed = [*BASE_COLUMNS, *(consult_column(e) for e in truth.entities)]
    missing = [column for column in needed if column not in predictions.columns]
    if missing:
        raise DataError(f"predictions lack column {missing[0]!r} (found: {', '.join(map(str, predictions.columns))})",
                        field=missing[0], hint="A deferral predictions table has columns " + ", ".join(needed) + ".")
    numbers = sorted(int(p) for p in predictions["point"].unique())
    if numbers != list(range(len(numbers))):
        raise DataError(f"operating points must be numbered 0, 1, ... without gaps, got {numbers[:6]}", field="point")
    points, model_answer = [], None
    for number in numbers:
        rows = _rows_of(predictions[predictions["point"] == number], truth.sample, number)
        consulted = rows[[consult_column(e) for e in truth.entities]].to_numpy(dtype=bool)
        if not consulted.any(axis=1).all():
            raise DataError(f"operating point {number} has a sample that consults no entity",
                            field=consult_column(truth.entities[0]))
        points.append(OperatingPoint(consulted, rows["decision"].to_numpy()))
        if number == 0:
            model_answer = rows["model_answer"].to_numpy()
    assert model_answer is not None  # point 0 exists: `numbers` starts at 0
    return ScoredAllocation(truth, tuple(points), model_answer)


def _rows_of(table: pd.DataFrame, samples: np.ndarray, point: int) -> pd.DataFrame:
    twice = table["sample"][table["sample"].duplicated()]
    if not twice.empty:
        raise DataError(f"sample {twice.iloc[0]} appears twice at operating point {point}", field="sample")
    indexed = table.set_index("sample")
    absent = pd.Index(samples).difference(indexed.index)
    if absent.size:
        raise DataError(f"{absent.size} test samples have no row at operating point {point}, e.g. sample "
                        f"{absent[0]}", field="sample", hint="Give every test sample a row at every point.")
    return indexed.loc[samples]
