"""Seed bands of learning curves: per method and dataset, the mean curve over seeds and its 95% interval.

Seeds that record the same steps are averaged step by step. Where they record different steps, each
seed is interpolated linearly onto the union of their steps within the range every seed covers (never
extrapolated), and the band says so (`interpolated`). The interval at a step is the report's
(`harness.stats.summarize`: Student t by default) over the seeds' finite values there.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.curves import Curve
from harness.stats import summarize


@dataclass(frozen=True)
class SeedBand:
    """One method's curve over seeds on one dataset; the interval is NaN where fewer than two seeds are finite."""

    method: str
    steps: tuple[float, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    seeds: int
    interpolated: bool  # the seeds recorded different steps: see the module's docstring


def seed_band(method: str, curves: Sequence[Curve], interval: str = "t") -> SeedBand:
    """The band of one method's `curves`, one per seed."""
    steps, rows, interpolated = _aligned(curves)
    cells = [summarize(column, interval) for column in rows.T]
    return SeedBand(method, tuple(float(s) for s in steps), tuple(c.mean for c in cells),
                    tuple(c.ci_low for c in cells), tuple(c.ci_high for c in cells), len(curves), interpolated)


def _aligned(curves: Sequence[Curve]) -> tuple[np.ndarray, np.ndarray, bool]:
    """(steps, values [seeds x steps], interpolated?)."""
    first = np.asarray(curves[0].steps)
    if all(np.array_equal(first, c.steps) for c in curves):
        return first, np.array([c.values for c in curves], dtype=float), False
    low, high = max(c.steps[0] for c in curves), min(c.steps[-1] for c in curves)
    union = np.unique(np.concatenate([c.steps for c in curves]))
    steps = union[(union >= low) & (union <= high)]
    return steps, np.array([np.interp(steps, c.steps, c.values) for c in curves]), True


def curve_panels(records: Sequence[Mapping[str, Any]],
                 curves: Mapping[str, Mapping[str, Curve]]) -> dict[tuple[str, str], dict[str, list[Curve]]]:
    """(curve name, dataset) -> method -> its seeds' curves, in the order of `records` (ok runs only)."""
    panels: dict[tuple[str, str], dict[str, list[Curve]]] = {}
    for record in records:
        if record.get("status") != "ok":
            continue
        for name, curve in curves.get(record["run_id"], {}).items():
            panels.setdefault((name, record["dataset"]), {}).setdefault(record["method"], []).append(curve)
    return panels
