"""A run record as reports, exports and comparisons read it: a typed view of the JSON a store keeps.

Two sources give records: a store (`Store.records()`: `RunRecord.as_json()`, every key) and a run export
(`runs.csv`, read back by `harness.results.records_of_export`: the keys a report needs). The keys both give are
required here; the rest only a store's record holds, so a report that reads one must say what it does without.
"""
from __future__ import annotations

from typing import Any, Required, TypedDict, get_origin, get_type_hints


class MeasurementJson(TypedDict, total=False):
    value: Required[float]
    unit: Required[str]
    higher_is_better: bool | None


class RecordJson(TypedDict, total=False):
    # Both sources: a store and a run export.
    run_id: Required[str]
    run_key: Required[str]
    suite: Required[str]
    method: Required[str]
    method_entry: Required[str]
    dataset: Required[str]
    seed: Required[int]
    status: Required[str]
    error: Required[str | None]
    device: Required[str | None]
    params: Required[dict[str, Any]]
    metric_names: Required[dict[str, str]]
    metrics: Required[dict[str, float]]
    measurements: Required[dict[str, MeasurementJson]]
    environment: Required[dict[str, Any]]
    finished_at: Required[str | None]
    # A store's record only (`harness.record.RunRecord`).
    record_version: int
    exec_key: str
    task: str
    impl: str | None
    method_version: str
    loader: str
    dataset_args: dict[str, Any]
    split: dict[str, Any]
    dataset_fingerprint: str
    metric_versions: dict[str, str]
    resources: dict[str, Any]
    threads: int
    predictions: str | None
    log: str | None
    curves: str
    started_at: str
    rescored_from: str


# The keys every stored record holds: a record lacking one does not load (`harness.store.loaded_record`). Read from
# the annotations, as postponed ones leave `__required_keys__` empty.
REQUIRED_KEYS = frozenset(key for key, hint in get_type_hints(RecordJson, include_extras=True).items()
                          if get_origin(hint) is Required)
