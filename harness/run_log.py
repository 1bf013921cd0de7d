"""A run's log, capped while it is written, so that a method printing without end cannot fill the store's disk.

A run's output (its stdout and stderr, its subprocesses' too) comes through a pipe, which a thread of the run's
process empties into its log as it comes (`OutputPump`). The log file takes the first LOG_KEEP_BYTES; what
follows goes into numbered part files of _PART_BYTES beside it, and a part is deleted once the later ones hold
the last LOG_KEEP_BYTES, so a log never takes more than 2 x LOG_KEEP_BYTES plus one part on disk, even while
`finish_log` appends the kept parts to the log file, after a line saying how many bytes were dropped, when the
run ends. Bytes move from the pipe to the files in the kernel (splice), so each is in one or the other at every
moment: a coordinator that holds the pipe's read end finishes the log of a worker that died mid-run with the
worker's last words (a segfault's stack among them).
"""
from __future__ import annotations

import os
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# A finished log keeps its first and last LOG_KEEP_BYTES (5 MiB each, documented in the README): the head says
# how the run started, the tail holds its error or its metrics.
LOG_KEEP_BYTES = 5 * 2**20
# The size of a tail part: how much more than 2 x LOG_KEEP_BYTES a log may hold on disk while it is written.
_PART_BYTES = 2**20


class OutputPump:
    """A pipe for runs' output and a thread that moves what comes through it into the log of the run capturing it
    now (`capturing`), capped as it is written; between runs, what comes is dropped. A local worker keeps one for
    all its runs, so that a run pays no thread start (a 300-run no-op grid took 0.7 s longer with a thread a run
    on 2 busy cores); its coordinator holds the pipe's `read_end` too."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self._wake_read, self._wake_write = os.pipe()
        self._lock = threading.Lock()
        self._log: CappedLog | None = None
        self._thread = threading.Thread(target=self._pump, name="run-output", daemon=True)
        self._thread.start()

    @contextmanager
    def capturing(self, path: Path) -> Iterator[None]:
        """What comes through the pipe while the block runs goes into the capped log `path`, finished after it."""
        log = CappedLog(path)
        with self._lock:
            self._log = log
        try:
            yield
        finally:
            with self._lock:
                self._log = None
                log.take(self.read_end)  # what the run wrote last: the pipe holds less than a part
                log.close()

    def close(self) -> None:
        """Stop the thread and close the pipe: a process still writing to it gets EPIPE."""
        os.write(self._wake_write, b"!")
        self._thread.join()
        for fd in (self.read_end, self.write_end, self._wake_read, self._wake_write):
            os.close(fd)

    def _pump(self) -> None:
        poller = select.poll()
        poller.register(self.read_end, select.POLLIN)  # never at its end: `write_end` is open until `close`
        poller.register(self._wake_read, select.POLLIN)
        while all(fd != self._wake_read for fd, _ in poller.poll()):
            with self._lock:
                self._move()

    def _move(self) -> None:
        if self._log is not None:
            try:
                self._log.take(self.read_end)
                return
            except OSError:  # the disk is full: the run goes on, its output dropped, rather than block
                pass
        _read(self.read_end, _PART_BYTES)


def drain(pipe: int) -> bytes:
    """What `pipe` (a non-blocking read end) holds now."""
    chunks = []
    while chunk := _read(pipe, 2**16):
        chunks.append(chunk)
    return b"".join(chunks)


def _read(pipe: int, size: int) -> bytes:
    try:
        return os.read(pipe, size)
    except BlockingIOError:
        return b""


def _parts_folder(path: Path) -> Path:
    return path.with_name(f"{path.name}.parts")


def _parts(path: Path) -> list[Path]:
    """The log's tail parts on disk, oldest first (named by their index)."""
    folder = _parts_folder(path)
    return sorted(folder.iterdir(), key=lambda p: int(p.name)) if folder.is_dir() else []


class CappedLog:
    """The one writer of a log while its run lasts: the log file takes the first `head` bytes (after what an
    earlier attempt at the run left there), then part files of `part` bytes, of which it keeps those that hold
    the last `tail` bytes."""

    def __init__(self, path: Path, head: int = LOG_KEEP_BYTES, tail: int = LOG_KEEP_BYTES,
                 part: int = _PART_BYTES) -> None:
        finish_log(path, tail=tail, part=part)  # an attempt whose coordinator died left its parts
        self.path, self.tail, self.part = path, tail, part
        self._file = os.open(path, os.O_WRONLY | os.O_CREAT)  # not O_APPEND, which splice refuses
        self._room = head - os.lseek(self._file, 0, os.SEEK_END)
        self._index = 0  # the file being written: 0 is the log file, k > 0 its part k

    def take(self, pipe: int) -> None:
        """Move what `pipe` holds now, up to one part's worth, into the log without waiting for more: a caller
        holding a lock lets go in between, even while a writer floods the pipe."""
        budget = self.part
        while budget > 0:
            if self._room <= 0:
                self._next_part()
            count = _move(pipe, self._file, min(self._room, budget))
            if count == 0:
                return
            budget -= count
            self._room -= count

    def _next_part(self) -> None:
        os.close(self._file)
        self._index += 1
        folder = _parts_folder(self.path)
        folder.mkdir(exist_ok=True)
        self._file = os.open(folder / str(self._index), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        self._room = self.part
        held = -(-self.tail // self.part)  # full parts that hold the last `tail` bytes
        (folder / str(self._index - held - 1)).unlink(missing_ok=True)

    def close(self) -> None:
        os.close(self._file)
        finish_log(self.path, tail=self.tail, part=self.part)


def _move(pipe: int, file: int, count: int) -> int:
    """Up to `count` bytes from `pipe` to `file`, in the kernel where it can (Linux), else through this process;
    0 when the pipe holds nothing now or has no writer left."""
    if not hasattr(os, "splice"):
        data = _read(pipe, min(count, 2**16))
        return os.write(file, data) if data else 0
    try:
        return os.splice(pipe, file, count, flags=os.SPLICE_F_NONBLOCK)
    except BlockingIOError:
        return 0


def finish_log(path: Path, last_words: bytes = b"", tail: int = LOG_KEEP_BYTES, part: int = _PART_BYTES) -> None:
    """Make the log `path` one file again: its kept parts, then `last_words` (what a dead worker left in its
    pipe), appended to it, their last `tail` bytes only, after a line saying how many bytes were dropped."""
    parts = _parts(path)
    if not parts and not last_words:
        return
    pieces: list[Path | bytes] = [*parts, last_words]
    skip = max(0, sum(p.stat().st_size if isinstance(p, Path) else len(p) for p in pieces) - tail)
    dropped = skip + (int(parts[0].name) - 1) * part if parts else skip  # the parts deleted were full
    with path.open("ab") as log:
        if dropped:
            log.write(f"\n[harness: {dropped} bytes of this log were dropped here; "
                      f"it keeps its first {log.tell()} and last {tail} bytes]\n".encode())
        for piece in pieces:  # a part at a time, deleted once copied: the disk holds at most one part twice
            data = piece.read_bytes() if isinstance(piece, Path) else piece
            cut = min(skip, len(data))
            skip -= cut
            log.write(data[cut:])
            if isinstance(piece, Path):
                log.flush()
                piece.unlink()
    if parts:
        _parts_folder(path).rmdir()
