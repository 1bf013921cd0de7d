"""What a running method may use from the harness: seed, device, threads, log, record, curves."""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.curves import Curve, CurveError


@dataclass
class Measurement:
    value: float
    unit: str
    higher_is_better: bool | None  # None: a descriptive figure (a count, a chosen rate), never ranked


@dataclass
class RunContext:
    """Handed to `Method.run`; figures given to `record` are stored with the run."""

    seed: int
    device: str
    threads: int
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("harness.run"))
    measurements: dict[str, Measurement] = field(default_factory=dict)
    curves: dict[str, Curve] = field(default_factory=dict)

    def record(self, name: str, value: float, unit: str = "", higher_is_better: bool | None = None) -> None:
        """Store a method-specific figure (tokens/s, bytes, sampled neighbours, ...).

        Give `higher_is_better` for a figure a report may rank (a rate, a validation score, a time);
        leave it None for one that only describes the run, which reports never mark best.
        """
        self.measurements[name] = Measurement(float(value), unit, higher_is_better)

    def record_curve(self, name: str, steps: Iterable[float], values: Iterable[float], unit: str = "",
                     higher_is_better: bool | None = None) -> None:
        """Store a whole learning curve (loss per training step, return per environment step, ...).

        One value per step; steps finite and strictly increasing. A second call with the same name
        replaces the curve. Stored beside the run's predictions and plotted per method with a seed band.
        """
        self.curves[name] = Curve.of(name, steps, values, unit, higher_is_better)

    def record_point(self, name: str, step: float, value: float, unit: str = "",
                     higher_is_better: bool | None = None) -> None:
        """Add one point to the curve `name` as training goes (e.g. after every epoch); the step must
        be larger than the curve's last, and the unit and direction those of its first point."""
        curve = self.curves.setdefault(name, Curve(name, unit, higher_is_better))
        if (curve.unit, curve.higher_is_better) != (unit, higher_is_better):
            raise CurveError(f"curve '{name}' was started with unit '{curve.unit}' and higher_is_better="
                             f"{curve.higher_is_better}; a later point cannot change them")
        curve.append(step, value)

    def to_json(self) -> dict[str, Any]:
        return {k: {"value": m.value, "unit": m.unit}
                | ({} if m.higher_is_better is None else {"higher_is_better": m.higher_is_better})
                for k, m in self.measurements.items()}
