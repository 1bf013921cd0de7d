"""One planned run, as the planner makes it and every executor, worker and store reads it: `RunSpec`.

Below planning and storage both, so that the store and the record never import the planner.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from harness.dataset_files import ResolvedDataset
from harness.run_resources import Resources


def new_run_id() -> str:
    """A unique id for one execution of a run (or one scoring of it): names its record, log and predictions files."""
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs to execute one run; picklable, so it crosses processes."""

    run_key: str
    exec_key: str               # the same without the metrics: runs that differ only in scoring share it
    suite: str
    task: str
    method: str                 # label in reports, e.g. "gcn" or "gcn[hidden=64]"
    method_entry: str           # the suite's method name
    impl: str | None            # registered method, or None for a predictions entry
    method_version: str
    params: dict[str, Any]
    predictions_file: str | None
    dataset: ResolvedDataset
    metrics: dict[str, str]     # suite metric name -> registered name
    metric_versions: dict[str, str]
    seed: int
    device: str
    timeout: float
    threads: int
    resources: Resources = field(default_factory=Resources)
    # This execution's id: a fresh one per plan, so two coordinators (or a rerun) never share a log or
    # predictions file; not part of the run's identity.
    run_id: str = field(default_factory=new_run_id, compare=False)

    @property
    def cell(self) -> tuple[str, str, int]:
        return (self.method, self.dataset.name, self.seed)
