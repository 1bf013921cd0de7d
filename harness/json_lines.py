"""One line of a user's JSONL file read as a JSON object, every mistake a `DataError` naming the file and line:
the shared first step of the families' bring-your-own readers."""
from __future__ import annotations

import json
from collections.abc import Iterator, Set
from pathlib import Path
from typing import Any

from harness.errors import DataError


def json_object(line: str, path: Path, number: int, keys: Set[str] | None) -> dict[str, Any]:
    """`line` (line `number` of `path`) parsed as a JSON object whose keys are all in `keys` (None: any)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON: {exc.msg}", file=path, line=number, column=exc.colno) from None
    if not isinstance(record, dict):
        raise DataError(f"a line holds one JSON object, got {type(record).__name__}", file=path, line=number)
    unknown = [] if keys is None else sorted(set(record) - set(keys))
    if unknown:
        raise DataError(f"unknown key {unknown[0]!r}", file=path, line=number, field=unknown[0],
                        hint=f"A line takes {', '.join(sorted(keys or ()))}.")
    return record


def json_objects(path: Path, keys: Set[str] | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of `path`, each checked by `json_object`; an unreadable
    file is a `DataError` naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot be read: {exc}", file=path) from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, json_object(line, path, number, keys)
