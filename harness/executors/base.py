"""The executor interface shared by inline, local and (later) Ray and Slurm backends."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from harness.run_spec import RunSpec
from harness.record import RunRecord, Status, utc_now
from harness.record_files import write_record_file


@dataclass(frozen=True)
class ExecutionSettings:
    """What every executor needs besides the runs themselves."""

    artifacts: Path                       # the store's run folder (`harness.run_folders`)
    environment: dict[str, Any]           # the coordinator's provenance, merged into each record
    jobs: int = 1
    plugins: tuple[str, ...] = field(default_factory=tuple)  # --plugin files, re-imported by workers
    retries: int = 0                      # re-submissions of a run whose worker or node was lost (ray, slurm)
    ray_address: str | None = None        # an existing Ray cluster; None starts a local instance
    slurm_partition: str | None = None    # default partition, unless a method's resources name one
    slurm_max_concurrent: int = 64        # cap on running array tasks


# BLAS/OpenMP thread variables every worker process sets to the suite's `threads`.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def execute_remote(spec: RunSpec, settings: ExecutionSettings) -> RunRecord:
    """The body of a run in a process the coordinator did not start (a Ray task, a Slurm job):
    load the plugins there too, then the same `execute` as every other executor."""
    from harness.registry import load_plugin_file
    from harness.worker import execute

    for plugin in settings.plugins:
        load_plugin_file(plugin)
    return execute(spec, settings.artifacts, settings.environment)


def failure_record(spec: RunSpec, status: Status, error: str, started_at: str, log: str | None,
                   settings: ExecutionSettings) -> RunRecord:
    """The record of a run whose worker never reported back (timeout, crash, a job that died), written as a
    record file too, so `harness ingest` of the run folder gives the same store."""
    record = RunRecord.of(spec, status=status, error=error, started_at=started_at, finished_at=utc_now(), log=log,
                          environment=settings.environment)
    write_record_file(record, settings.artifacts)
    return record


@dataclass(frozen=True)
class RunStarted:
    spec: RunSpec


@dataclass(frozen=True)
class RunFinished:
    spec: RunSpec
    record: RunRecord


RunEvent = RunStarted | RunFinished


class Executor(ABC):
    """Submit runs, then iterate `events()` until every submitted run has finished.

    Runs submitted while `events()` is iterated are executed in the same iteration, so a coordinator
    can claim runs a window (`jobs` x `runs_held_per_job`) at a time; an executor that hands its queue to a
    cluster as it starts says `queues_remotely` and is given every run it can have at once.
    """

    queues_remotely: ClassVar[bool] = False
    runs_held_per_job: ClassVar[int] = 1  # runs a worker is handed at once: the one it executes, and what is next

    def __init__(self, settings: ExecutionSettings) -> None:
        self.settings = settings

    @abstractmethod
    def submit(self, spec: RunSpec) -> None:
        """Queue one run."""

    @abstractmethod
    def events(self) -> Iterator[RunEvent]:
        """Yield a `RunStarted` and a `RunFinished` event per submitted run, as they happen."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop everything still running; finished runs have already been reported."""
