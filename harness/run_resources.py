"""What one run may use (`Resources`) and the units suites write it in: durations, memory sizes, seeds.

Below the suite file and the store alike: a suite declares resources, a planned run carries them and a stored
record keeps them, so neither depends on the other for them.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
MAX_DURATION_S = 30 * 24 * 3600.0  # a month: more is a typo, and infinite waits never time out (the coordinator spins)
# Integers as YAML gives them (no booleans: `true` is not 1) that fit SQLite's 64 bits.
Seed = Annotated[StrictInt, Field(ge=0, lt=2**63)]
Count = Annotated[StrictInt, Field(le=1024)]


def parse_duration(value: Any) -> float:
    """Seconds from `90`, `"90s"`, `"20m"` or `"1.5h"`."""
    if isinstance(value, bool):
        raise ValueError("a duration is a number of seconds or a string like '20m'")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value))
        if not match:
            raise ValueError(f"'{value}' is not a duration; write e.g. 90, '90s', '20m' or '2h'")
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if not 0 < seconds <= MAX_DURATION_S:  # also refuses NaN
        raise ValueError(f"a duration must be positive and at most {MAX_DURATION_S / 3600:.0f}h, not {str(value):.20}")
    return seconds


_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT])B?\s*$", re.IGNORECASE)
_MEMORY_MB = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
MAX_MEMORY_MB = 1024 * 1024 * 1024  # 1024T: larger sizes overflow the byte counts of rlimits and schedulers


def memory_mb(text: str) -> int:
    """Megabytes from '512M', '8G', '1.5T' (Slurm's units)."""
    match = _MEMORY.match(text)
    if not match:
        raise ValueError(f"'{text}' is not a memory size; write e.g. '512M', '8G' or '1T'")
    megabytes = float(match.group(1)) * _MEMORY_MB[match.group(2).upper()]
    if not megabytes <= MAX_MEMORY_MB:  # also refuses infinity, what a 400-digit size parses to
        raise ValueError(f"memory size '{text:.20}' is larger than 1024T")
    return max(1, int(megabytes))


def _accepted(value: str | None, parse: Callable[[str], object]) -> str | None:
    """`value` as written once `parse` accepts it (a bad one raises there); None sets no limit."""
    if value is not None:
        parse(value)
    return value


class Resources(BaseModel):
    """What one run needs; honoured by every executor (local pins GPUs, Ray reserves, Slurm requests)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpus: Count = Field(0, ge=0)
    cpus: Count = Field(1, ge=1)
    mem: str | None = Field(None, description="memory, e.g. '8G'")
    time: str | None = Field(None, description="wall-clock limit on a cluster, e.g. '2h'")
    partition: str | None = Field(None, description="Slurm partition for this method")

    _memory = field_validator("mem")(lambda value: _accepted(value, memory_mb))
    _time = field_validator("time")(lambda value: _accepted(value, parse_duration))

    @property
    def memory_mb(self) -> int | None:
        return None if self.mem is None else memory_mb(self.mem)

    @property
    def time_minutes(self) -> int | None:
        return None if self.time is None else max(1, round(parse_duration(self.time) / 60))
