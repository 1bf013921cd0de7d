"""The executor interface shared by inline, local and (later) Ray and Slurm backends."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.planner import RunSpec


@dataclass(frozen=True)
class ExecutionSettings:
    """What every executor needs besides the runs themselves."""

    artifacts: Path                       # the store's runs/ folder
    environment: dict[str, Any]           # the coordinator's provenance, merged into each record
    jobs: int = 1
    plugins: tuple[str, ...] = field(default_factory=tuple)  # --plugin files, re-imported by workers
    retries: int = 0                      # re-submissions of a run whose worker or node was lost (ray, slurm)
    ray_address: str | None = None        # an existing Ray cluster; None starts a local instance
    slurm_partition: str | None = None    # default partition, unless a method's resources name one
    slurm_max_concurrent: int = 64        # cap on running array tasks


@dataclass(frozen=True)
class RunEvent:
    kind: Literal["started", "finished"]
    spec: RunSpec
    record: dict[str, Any] | None = None


class Executor(ABC):
    """Submit runs, then iterate `events()` until every submitted run has finished."""

    def __init__(self, settings: ExecutionSettings) -> None:
        self.settings = settings

    @abstractmethod
    def submit(self, spec: RunSpec) -> None:
        """Queue one run."""

    @abstractmethod
    def events(self) -> Iterator[RunEvent]:
        """Yield a `started` and a `finished` event per submitted run, as they happen."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop everything still running; finished runs have already been reported."""
