"""Content hashes: stable keys for runs and datasets."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values hash equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def digest(value: Any, length: int = 16) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:length]


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, cached per (path, size, mtime) for the life of the process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_HASHES:
        sha = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                sha.update(block)
        _FILE_HASHES[key] = sha.hexdigest()
    return _FILE_HASHES[key]


def folder_sha256(path: Path) -> str:
    """sha256 over a folder's files (relative names and contents), e.g. a TU dataset's raw text files."""
    files = sorted(f for f in path.rglob("*") if f.is_file())
    return digest({f.relative_to(path).as_posix(): file_sha256(f) for f in files}, length=64)
