"""What the `harness` command prints: no terminal control sequences, and a stream that fails is an exit code.

A name from a suite or a plugin reaches the terminal through `plan`, `ls`, `report`, `validate` and error
messages; a method named "a\\x1b[2J" would clear the screen. So every character a terminal acts on (the C0
controls but tab and newline, DEL and the C1 controls) is printed escaped, as Python writes it in a string.
And a write to a full or closed stdout or stderr (`harness plan SUITE > /dev/full`) raises `StreamError`,
which `main` turns into `STREAM_FAILED_EXIT` with one line instead of a traceback.
"""
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO, cast

_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0))}


def terminal_safe(text: str) -> str:
    """`text` with every control character but tab and newline written as its escape (`\\x1b`)."""
    return text.translate(_CONTROLS)


class StreamError(Exception):
    """stdout or stderr cannot be written (disk full, closed): what the command prints is lost."""

    def __init__(self, name: str, cause: OSError) -> None:
        super().__init__(name, cause)
        self.name, self.cause = name, cause

    def __str__(self) -> str:
        return f"cannot write to {self.name}: {self.cause.strerror or self.cause}"


class TerminalStream:
    """A text stream whose writes are `terminal_safe` and raise `StreamError` where the stream fails; the rest
    (`fileno`, `isatty`, `encoding`) is the wrapped stream's."""

    def __init__(self, stream: TextIO, name: str) -> None:
        self.stream, self.name = stream, name

    def write(self, text: str) -> int:
        with self._failing_as_stream_error():
            self.stream.write(terminal_safe(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._failing_as_stream_error():
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    @contextlib.contextmanager
    def _failing_as_stream_error(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            raise  # the reader went away (`| head`): `main` ends quietly, as Unix tools do
        except OSError as exc:
            raise StreamError(self.name, exc) from exc


@contextlib.contextmanager
def terminal_streams() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` as `TerminalStream`s while a command runs (a closed one stays None)."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None:
        sys.stdout = cast(TextIO, TerminalStream(sys.stdout, "stdout"))
    if sys.stderr is not None:
        sys.stderr = cast(TextIO, TerminalStream(sys.stderr, "stderr"))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def flush_streams() -> None:
    """Flush now, inside `main`, so that a failing stream shows here rather than in the interpreter's exit."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def tell(text: str) -> None:
    """Print one line to stderr; a stderr that cannot take it loses it, as the exit code still says what happened."""
    if sys.stderr is None:  # started with stderr closed (and print(file=None) would print to stdout)
        return
    try:
        print(text, file=sys.stderr)
    except (StreamError, OSError):
        discard("stderr")


def discard(name: str) -> None:
    """Point the failed stream's file descriptor at /dev/null: what is left in its buffer can never be written,
    and the interpreter's final flush must not fail again ("Exception ignored"), as in Python's SIGPIPE recipe.
    A stream without a file descriptor (a test's capture buffer) has nothing to redirect."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        target = getattr(sys, name).fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, target)
        os.close(null)
