"""One line of a user's JSONL file read as a JSON object, every mistake a `DataError` naming the file and line:
the shared first step of the families' bring-your-own readers."""
from __future__ import annotations

import json
from collections.abc import Set
from pathlib import Path
from typing import Any

from harness.errors import DataError


def json_object(line: str, path: Path, number: int, keys: Set[str]) -> dict[str, Any]:
    """`line` (line `number` of `path`) parsed as a JSON object whose keys are all in `keys`."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON: {exc.msg}", file=path, line=number, column=exc.colno) from None
    if not isinstance(record, dict):
        raise DataError(f"a line holds one JSON object, got {type(record).__name__}", file=path, line=number)
    unknown = sorted(set(record) - set(keys))
    if unknown:
        raise DataError(f"unknown key {unknown[0]!r}", file=path, line=number, field=unknown[0],
                        hint=f"A line takes {', '.join(sorted(keys))}.")
    return record
