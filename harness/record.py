"""The run record: what the store keeps for every run. Versioned; bump on any change.

Record schema, version 1 (a JSON object):

| field | meaning |
|---|---|
| record_version | 1 |
| run_key | hash of what changes the answer (see `harness.planner`) |
| exec_key | the same hash without the metrics; `harness score` re-scores across it |
| run_id | unique id of this execution; cited by reports |
| suite, task, method, method_entry, impl, method_version, params | what ran |
| dataset, loader, dataset_args, split, dataset_fingerprint, seed | on what |
| metric_names, metric_versions | suite metric name -> registered name / version |
| status | `ok`, `failed` (raised), `timeout`, `oom`, `crashed` (the worker died) |
| error | the error text, or null |
| metrics | suite metric name -> value (quality metrics) |
| measurements | name -> {value, unit[, higher_is_better]}: wall_s, cpu_s, peak_rss_mb, peak_cuda_mb, and `ctx.record` figures |
| device, threads | where it ran |
| environment | python, platform, harness, packages, torch, cuda, git_sha, git_dirty, hardware, hardware_fingerprint |
| predictions | path of the per-sample Parquet file, relative to the store's folder, or null |
| log | path of the run's log file, relative to the store's folder |
| started_at, finished_at | UTC, ISO 8601 |
"""
from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.planner import RunSpec

RECORD_SCHEMA_VERSION = 1
STATUSES = ("ok", "failed", "timeout", "oom", "crashed")


def new_run_id() -> str:
    """A unique id for one execution of a run (or one scoring of it): names its record, log and predictions files."""
    return uuid.uuid4().hex[:12]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_record(spec: "RunSpec", started_at: str) -> dict[str, Any]:
    """A record for `spec` with no outcome yet; the executor fills status and results."""
    return {
        "record_version": RECORD_SCHEMA_VERSION,
        "run_key": spec.run_key,
        "exec_key": spec.exec_key,
        "run_id": spec.run_id,
        "suite": spec.suite,
        "task": spec.task,
        "method": spec.method,
        "method_entry": spec.method_entry,
        "impl": spec.impl,
        "method_version": spec.method_version,
        "params": spec.params,
        "dataset": spec.dataset.name,
        "loader": spec.dataset.loader,
        "dataset_args": spec.dataset.args,
        "split": spec.dataset.split,
        "dataset_fingerprint": spec.dataset.fingerprint,
        "seed": spec.seed,
        "metric_names": spec.metrics,
        "metric_versions": spec.metric_versions,
        "resources": spec.resources.model_dump(),
        "status": "failed",
        "error": None,
        "metrics": {},
        "measurements": {},
        "device": None,
        "threads": spec.threads,
        "environment": {},
        "predictions": None,
        "log": None,
        "started_at": started_at,
        "finished_at": None,
    }


def failure(spec: "RunSpec", status: str, error: str, started_at: str, log: str | None) -> dict[str, Any]:
    """The record of a run whose worker never reported back (timeout, crash)."""
    record = new_record(spec, started_at)
    record.update(status=status, error=error, log=log, finished_at=utc_now())
    return record
