"""The files and folders a command writes (`--out`), failing as user errors when they cannot be written.

The path is the user's choice, so a read-only folder, a path under a regular file or a folder where a file
belongs is a mistake the user can fix: it is reported like any other (exit 3), naming the path and the fix,
instead of ending in a PermissionError traceback.
"""
from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import HarnessError


class OutputError(HarnessError):
    """An output file or folder the user named cannot be written."""


# errno -> why the path cannot be written, and what to do about it ({option}, {folder} filled in).
_REASONS = {
    errno.EACCES: ("permission denied", "Give {option} a path in a folder you can write to, or make {folder} "
                                        "writable."),
    errno.EROFS: ("the file system is read-only", "Give {option} a path on a writable file system."),
    errno.ENOSPC: ("the disk is full", "Free some space, or give {option} a path on another disk."),
    errno.EISDIR: ("it is a folder, where a file is written", "Give {option} a file's path, not a folder's."),
    errno.EEXIST: ("it is a file, where a folder is written",  # what mkdir(exist_ok=True) says of a file
                   "Give {option} a folder's path, or move the file away."),
}
_REASONS[errno.EPERM] = _REASONS[errno.EACCES]
_REASONS[errno.EDQUOT] = _REASONS[errno.ENOSPC]
_ANY_FOLDER = "Give {option} a path in a folder you can write to."


@contextmanager
def writing_outputs(out: Path, option: str = "--out") -> Iterator[None]:
    """Run a block that writes under `out`: an OSError in it becomes an `OutputError` naming the path.

    Keep printing to stdout outside the block: a closed or full stdout is not the output path's fault.
    """
    try:
        yield
    except OSError as exc:
        raise _unwritable(out, exc, option) from None


def _unwritable(out: Path, exc: OSError, option: str = "--out") -> OutputError:
    """The error for `exc`, raised while writing under `out`: which path, why, and what to give instead."""
    blocking = _file_in_the_way(out)
    if blocking is not None and blocking != out:
        return OutputError(f"cannot write {out}: {blocking} is a file, so nothing can be written under it",
                           field=option, hint=_ANY_FOLDER.format(option=option))
    path = Path(exc.filename) if isinstance(exc.filename, str) else out
    reason, hint = _REASONS.get(exc.errno or 0, (exc.strerror or str(exc), _ANY_FOLDER))
    return OutputError(f"cannot write {path}: {reason}", field=option,
                       hint=hint.format(option=option, folder=_existing_folder(path)))


def _file_in_the_way(path: Path) -> Path | None:
    """The nearest existing ancestor of `path` (or `path` itself) when it is not a folder."""
    for candidate in (path, *path.parents):
        if os.path.exists(candidate):  # os.path, not Path: it answers False where a folder cannot be searched
            return None if os.path.isdir(candidate) else candidate
    return None


def _existing_folder(path: Path) -> Path:
    return next((p for p in (path, *path.parents) if os.path.isdir(p)), Path("."))
