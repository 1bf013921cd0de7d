"""What a running method may use from the harness: seed, device, threads, log, record."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any


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

    def record(self, name: str, value: float, unit: str = "", higher_is_better: bool | None = None) -> None:
        """Store a method-specific figure (tokens/s, bytes, sampled neighbours, ...).

        Give `higher_is_better` for a figure a report may rank (a rate, a validation score, a time);
        leave it None for one that only describes the run, which reports never mark best.
        """
        self.measurements[name] = Measurement(float(value), unit, higher_is_better)

    def to_json(self) -> dict[str, Any]:
        return {k: {"value": m.value, "unit": m.unit}
                | ({} if m.higher_is_better is None else {"higher_is_better": m.higher_is_better})
                for k, m in self.measurements.items()}
