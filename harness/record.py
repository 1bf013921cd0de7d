"""The run record: what the store keeps for every run, as a typed model (pydantic v2). Versioned; bump on any change.

`RunRecord` is the record of schema version 1, field for field as the harness wrote it before the
record was a model, so existing stores and record files read unchanged (`record_json_schema()`
documents it). It is checked wherever a record enters the store: built by the worker or an executor,
or read from a record file, whose problems `describe_problems` names field by field.

Unknown keys are rejected, never carried along: a version-1 record has exactly these fields, and a
record with more was written by a newer harness (which bumps the version) or edited by hand.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from harness.run_resources import Resources, Seed

if TYPE_CHECKING:
    from harness.run_spec import RunSpec

RECORD_SCHEMA_VERSION: Final = 1
Status = Literal["ok", "failed", "timeout", "oom", "crashed"]
STATUSES: tuple[str, ...] = get_args(Status)
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)  # no coercion: "0" is not a seed, 17 not a date
_PROBLEMS_SHOWN = 3


class Measurement(BaseModel):
    """One measured figure: the harness's wall_s, cpu_s, peak_rss_mb, peak_cuda_mb, or a method's `ctx.record`."""

    model_config = _STRICT

    value: float
    unit: str
    higher_is_better: bool | None = Field(None, exclude_if=lambda value: value is None,
                                          description="absent: a figure without a direction, never ranked")


class RunRecord(BaseModel):
    """The record of one execution of a run (or one scoring of it)."""

    model_config = _STRICT

    record_version: Literal[1] = Field(description="schema version of this record")
    run_key: str = Field(description="hash of what changes the answer (see `harness.planner`)")
    exec_key: str = Field(description="the run key without the metrics; `harness score` re-scores across it")
    run_id: str = Field(description="unique id of this execution; cited by reports")
    suite: str = Field(description="the suite that executed it (runs are shared: see `harness.suite_runs`)")
    task: str
    method: str = Field(description="label in reports, e.g. `gcn[hidden=64]`")
    method_entry: str = Field(description="the suite's method name")
    impl: str | None = Field(description="registered method; null for a suite's predictions entry")
    method_version: str
    params: dict[str, Any]
    dataset: str
    loader: str
    dataset_args: dict[str, Any]
    split: dict[str, Any]
    dataset_fingerprint: str
    seed: Seed
    metric_names: dict[str, str] = Field(description="suite metric name -> registered name")
    metric_versions: dict[str, str] = Field(description="suite metric name -> registered version")
    resources: Resources
    status: Status = Field(description="`failed`: raised; `crashed`: the worker died")
    error: str | None = Field(None, description="the error text")
    metrics: dict[str, float] = Field(default_factory=dict, description="suite metric name -> value")
    measurements: dict[str, Measurement] = Field(default_factory=dict)
    device: str | None = None
    threads: StrictInt
    environment: dict[str, Any] = Field(
        default_factory=dict, description="python, platform, harness, packages, torch, cuda, git_sha, git_dirty, "
                                          "hardware, hardware_fingerprint, numerics, numerics_fingerprint, "
                                          "determinism (the method's `harness.Determinism`); no hostname")
    predictions: str | None = Field(None, description="the per-sample Parquet file, relative to the store's folder")
    log: str | None = Field(None, description="the run's log file, relative to the store's folder")
    curves: str | None = Field(None, exclude_if=lambda value: value is None,
                               description="the run's learning curves (Parquet, `harness.curves`), relative to the "
                                           "store's folder; absent when it records none")
    started_at: str = Field(description="UTC, ISO 8601")
    finished_at: str = Field(description="UTC, ISO 8601")
    rescored_from: str | None = Field(None, exclude_if=lambda value: value is None,
                                      description="run id of the record whose predictions `harness score` re-scored")

    @field_validator("record_version", mode="before")
    @classmethod
    def _not_newer(cls, version: Any) -> Any:
        if isinstance(version, int) and not isinstance(version, bool) and version > RECORD_SCHEMA_VERSION:
            raise ValueError(f"record version {version} is newer than this harness reads ({RECORD_SCHEMA_VERSION}); "
                             "upgrade the harness")
        return version

    @classmethod
    def of(cls, spec: "RunSpec", **outcome: Any) -> "RunRecord":
        """The record of one execution of `spec`; `outcome` says how it went (status, started_at, finished_at,
        and what it produced)."""
        return cls(
            record_version=RECORD_SCHEMA_VERSION, run_key=spec.run_key, exec_key=spec.exec_key, run_id=spec.run_id,
            suite=spec.suite, task=spec.task, method=spec.method, method_entry=spec.method_entry, impl=spec.impl,
            method_version=spec.method_version, params=spec.params, dataset=spec.dataset.name,
            loader=spec.dataset.loader, dataset_args=spec.dataset.args, split=spec.dataset.split,
            dataset_fingerprint=spec.dataset.fingerprint, seed=spec.seed, metric_names=spec.metrics,
            metric_versions=spec.metric_versions, resources=spec.resources, threads=spec.threads, **outcome,
        )

    def changed(self, **fields: Any) -> "RunRecord":
        """A copy with `fields` replaced, checked like a new record (pydantic's `model_copy` checks nothing)."""
        return self.model_validate(self.as_json() | fields)

    def as_json(self) -> dict[str, Any]:
        """The record as the store and record files keep it, and as reports and exports read it."""
        return self.model_dump()

    def json_text(self) -> str:
        return json.dumps(self.as_json(), sort_keys=True)


def record_json_schema() -> dict[str, Any]:
    """The JSON Schema of a run record, for tools that read stores or record files."""
    return RunRecord.model_json_schema()


def describe_problems(error: ValidationError) -> str:
    """A record's problems on one line, each naming its field, e.g. `seed: input should be less than ...`."""
    problems = error.errors(include_url=False)
    lines = [f"{'.'.join(str(part) for part in p['loc']) or 'record'}: {_problem_text(p)}"
             for p in problems[:_PROBLEMS_SHOWN]]
    more = len(problems) - _PROBLEMS_SHOWN
    return "; ".join(lines) + (f"; and {more} more" if more > 0 else "")


def _problem_text(problem: Any) -> str:
    if problem["type"] == "missing":
        return "missing"
    if problem["type"] == "extra_forbidden":
        return f"not a field of a version-{RECORD_SCHEMA_VERSION} record"
    if problem["type"] == "value_error":
        return str(problem["ctx"]["error"])
    text = problem["msg"][0].lower() + problem["msg"][1:]
    shown = json.dumps(problem["input"], default=str)
    return f"{text}, not {shown[:40]}{'...' if len(shown) > 40 else ''}"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
