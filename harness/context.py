"""What a running method may use from the harness: seed, device, threads, log, record."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Measurement:
    value: float
    unit: str


@dataclass
class RunContext:
    """Handed to `Method.run`; figures given to `record` are stored with the run."""

    seed: int
    device: str
    threads: int
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("harness.run"))
    measurements: dict[str, Measurement] = field(default_factory=dict)

    def record(self, name: str, value: float, unit: str = "") -> None:
        """Store a method-specific figure (tokens/s, bytes, sampled neighbours, ...)."""
        self.measurements[name] = Measurement(float(value), unit)

    def to_json(self) -> dict[str, Any]:
        return {k: {"value": m.value, "unit": m.unit} for k, m in self.measurements.items()}
