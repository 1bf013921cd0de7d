"""Stored records as a pandas DataFrame: one row per run, for exports, comparisons and the API."""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pandas as pd

_COLUMNS = ["run_id", "run_key", "suite", "method", "dataset", "seed", "status", "error", "device"]


def records_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per run: identity columns, `metric.<name>` and `measure.<name>` columns."""
    rows = []
    for record in records:
        row = {column: record.get(column) for column in _COLUMNS}
        row["params"] = record.get("params")
        row["metric_names"] = record.get("metric_names")
        row["git_sha"] = record.get("environment", {}).get("git_sha")
        row["hardware_fingerprint"] = record.get("environment", {}).get("hardware_fingerprint")
        row.update({f"metric.{k}": v for k, v in record.get("metrics", {}).items()})
        row.update({f"measure.{k}": m["value"] for k, m in record.get("measurements", {}).items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else _COLUMNS)


def export_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """`records_frame` with its dict columns as JSON text, for CSV and Parquet files."""
    frame = records_frame(records)
    for column in ("params", "metric_names"):
        frame[column] = frame[column].map(lambda value: json.dumps(value, sort_keys=True))
    return frame
