"""Who holds a store locked: the process a 'database is locked' message should name, so the user can tell a
coordinator still running from one left hanging. Linux lists file locks in /proc/locks; elsewhere nobody is named."""
from __future__ import annotations

import os
from pathlib import Path

_LOCKS = Path("/proc/locks")


def lock_holders(store: Path) -> list[str]:
    """'pid N (command line)' of every other process holding a lock on the store or its WAL files."""
    inodes = set()
    for path in (store, store.with_name(store.name + "-wal"), store.with_name(store.name + "-shm")):
        try:
            inodes.add(os.stat(path).st_ino)
        except OSError:
            continue
    try:
        lines = _LOCKS.read_text().splitlines()
    except OSError:
        return []
    pids = sorted({int(pid) for pid, inode in map(_pid_and_inode, lines) if inode in inodes and pid} - {os.getpid()})
    return [_describe(pid) for pid in pids]


def _pid_and_inode(line: str) -> tuple[str, int]:
    """A /proc/locks line: `1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF` (blocked waiters add `->`)."""
    fields = line.replace("->", "").split()
    try:
        return fields[4], int(fields[5].rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return "", -1


def _describe(pid: int) -> str:
    import psutil  # only when a lock is met: `harness --help` imports no heavy library

    try:
        command = " ".join(" ".join(psutil.Process(pid).cmdline()).split())  # one line, whatever its arguments
    except psutil.Error:
        return f"pid {pid}"
    return f"pid {pid} ({command[:200]})" if command else f"pid {pid}"
