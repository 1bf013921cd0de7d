"""Capping a run's log so a method that prints without end cannot fill the store's disk with one file."""
from __future__ import annotations

import os
from pathlib import Path

# A capped log keeps its first and last LOG_KEEP_BYTES (5 MiB each, documented in the README): the head
# says how the run started, the tail holds its error or its metrics.
LOG_KEEP_BYTES = 5 * 2**20


def cap_log(path: Path, head: int = LOG_KEEP_BYTES, tail: int = LOG_KEEP_BYTES) -> None:
    """Rewrite `path` as its first `head` and last `tail` bytes around a line saying how many were dropped;
    a log within `head + tail` bytes, or one that does not exist, is left alone."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size <= head + tail:
        return
    capped = path.with_name(f"{path.name}.cap{os.getpid()}")
    with path.open("rb") as source, capped.open("wb") as sink:
        sink.write(source.read(head))
        sink.write(f"\n[harness: {size - head - tail} bytes of this log were dropped here; "
                   f"it keeps its first {head} and last {tail} bytes]\n".encode())
        source.seek(size - tail)
        sink.write(source.read(tail))
    os.replace(capped, path)
