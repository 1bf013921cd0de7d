"""Reading a file that must be a plain file of bounded size: a record file in a run folder, a suite file.

A fifo named like a record file once blocked `harness ingest` and `harness run` in `open` until killed, and a
symlink to /dev/zero in a `read` that never ends. Here a file is looked at before it is opened (`lstat`, or `stat`
where links are welcome), opened with `O_NONBLOCK` (a fifo swapped in meanwhile cannot block the open) and
`O_NOFOLLOW` where links are not, checked again on the open descriptor, and read up to a cap.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a fifo"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


class NotAPlainFile(ValueError):
    """A file that is not a regular file, or larger than its reader accepts; the message says which."""


class FileTooLarge(NotAPlainFile):
    """A regular file over its reader's cap."""


def file_kind(mode: int) -> str:
    """What a `st_mode` that is not a regular file's describes, in words ("a fifo")."""
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def read_plain_file(path: Path, limit: int, *, follow_symlinks: bool = False) -> bytes:
    """The bytes of `path`; `NotAPlainFile` when it is not a regular file (a link, where `follow_symlinks` is
    false), `FileTooLarge` when it holds more than `limit` bytes; `OSError` as `open` raises it."""
    _check(os.stat(path) if follow_symlinks else os.lstat(path), limit)
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        _check(os.fstat(descriptor), limit)
        content = handle.read(limit + 1)
    if len(content) > limit:  # it grew between fstat and read
        raise FileTooLarge(f"it holds more than the cap of {limit:,} bytes")
    return content


def _check(status: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise NotAPlainFile(f"it is {file_kind(status.st_mode)}, not a regular file")
    if status.st_size > limit:
        raise FileTooLarge(f"it holds {status.st_size:,} bytes, over the cap of {limit:,}")
