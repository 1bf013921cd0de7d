"""Stored records as a pandas DataFrame: one row per run, for exports, comparisons and the API; and back."""
from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any, cast

import pandas as pd

from harness.errors import HarnessError
from harness.record_json import RecordJson

_COLUMNS = ["run_id", "run_key", "suite", "method", "dataset", "seed", "status", "error", "device"]
_JSON_COLUMNS = ("params", "metric_names", "measure_info")
ENVIRONMENT_COLUMNS = ("hardware_fingerprint", "numerics_fingerprint", "determinism")  # from a run's environment


def records_frame(records: Iterable[RecordJson]) -> pd.DataFrame:
    """One row per run: identity columns, `metric.<name>` and `measure.<name>` columns.

    `measure_info` keeps each measure's unit and direction, so a report can be rendered again from an export.
    """
    rows = []
    for record in records:
        row = {column: record.get(column) for column in _COLUMNS}
        row["params"] = record.get("params")
        row["metric_names"] = record.get("metric_names")
        environment = record.get("environment", {})
        row["git_sha"] = environment.get("git_sha")
        row["git_dirty"] = environment.get("git_dirty")
        row.update({key: environment.get(key) for key in ENVIRONMENT_COLUMNS})
        row["finished_at"] = record.get("finished_at")
        measurements = record.get("measurements", {})
        row["measure_info"] = {k: {f: m[f] for f in ("unit", "higher_is_better") if f in m}
                               for k, m in measurements.items()}
        row.update({f"metric.{k}": v for k, v in record.get("metrics", {}).items()})
        row.update({f"measure.{k}": m["value"] for k, m in measurements.items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else _COLUMNS)


def export_frame(records: Iterable[RecordJson]) -> pd.DataFrame:
    """`records_frame` with its dict columns as JSON text, for CSV and Parquet files."""
    frame = records_frame(records)
    for column in _JSON_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].map(lambda value: json.dumps(value, sort_keys=True))
    return frame


def records_of_export(frame: pd.DataFrame, source: str) -> list[RecordJson]:
    """The run records an export holds, as far as it holds them: what a report needs to be rendered again.

    An export written before units and directions were exported gives measures with neither. A cell
    that cannot be read is an error naming the file's line.
    """
    records = []
    for index, row in enumerate(frame.to_dict("records")):
        try:
            records.append(_record_of_row(row))
        except (ValueError, TypeError) as exc:  # a non-number where a number belongs; JSON that does not parse
            raise HarnessError(f"run row {index + 1} cannot be read ({exc})", file=source, line=index + 2,
                               hint="Write the file with `harness export` or `harness report`.") from None
    return records


def _record_of_row(row: dict[str, Any]) -> RecordJson:
    info = json_mapping(row.get("measure_info"))
    record = {column: _cell(row.get(column)) for column in _COLUMNS}
    record.update(
        seed=int(row["seed"]), params=json_mapping(row.get("params")),
        metric_names=json_mapping(row.get("metric_names")), method_entry=str(row["method"]).split("[", 1)[0],
        finished_at=_cell(row.get("finished_at")),
        environment={"git_sha": _cell(row.get("git_sha")), "git_dirty": _flag(row.get("git_dirty")),
                     **{key: _cell(row.get(key)) for key in ENVIRONMENT_COLUMNS}},
        metrics={k.removeprefix("metric."): float(v) for k, v in row.items()
                 if k.startswith("metric.") and _cell(v) is not None},
        # A measure the run recorded as NaN (not defined for this dataset) is named in the row's measure_info;
        # an empty cell without it is a measure the run never recorded.
        measurements={(name := k.removeprefix("measure.")): {"value": float(v) if _cell(v) is not None else math.nan,
                                                            **info.get(name, {"unit": ""})}
                      for k, v in row.items()
                      if k.startswith("measure.") and (_cell(v) is not None or k.removeprefix("measure.") in info)},
    )
    return cast(RecordJson, record)  # the keys a report needs, each read from its column above


def _cell(value: Any) -> Any:
    """An empty CSV cell (NaN, <NA>) is no value."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def _flag(value: Any) -> bool | None:
    """A CSV's True/False (text in a column with empty cells); None when the export has no such column."""
    value = _cell(value)
    return None if value is None else str(value).lower() in ("true", "1")


def json_mapping(value: Any) -> dict[str, Any]:
    """`harness export` writes mappings as JSON text; an empty cell is no mapping. Bad JSON: ValueError."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        parsed = json.loads(value)
        return parsed if isinstance(parsed, dict) else {}
    return {}
