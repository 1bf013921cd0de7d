"""Caps on what one suite may ask for, each raisable by an environment variable; read here and nowhere else.

A 32 KB suite once planned 9x10^7 runs: `validate` passed it and `plan` grew past 2.3 GB before it was killed.
Suite files of 2-10 MB took over 90 s to parse. Both caps sit far above any real suite (the largest committed one
plans a few hundred runs from 9 KB) and far below what exhausts a machine; a suite past one is refused, naming
the file, the figure and the variable that raises the cap.
"""
from __future__ import annotations

import os

from harness.errors import HarnessError

MAX_RUNS_ENV = "HARNESS_MAX_RUNS"
DEFAULT_MAX_RUNS = 100_000
MAX_SUITE_BYTES_ENV = "HARNESS_MAX_SUITE_BYTES"
DEFAULT_MAX_SUITE_BYTES = 2**20


def max_runs() -> int:
    """The most runs one suite may plan: $HARNESS_MAX_RUNS, else 100,000."""
    return _cap(MAX_RUNS_ENV, DEFAULT_MAX_RUNS)


def max_suite_bytes() -> int:
    """The largest suite file read, in bytes: $HARNESS_MAX_SUITE_BYTES, else 1 MiB."""
    return _cap(MAX_SUITE_BYTES_ENV, DEFAULT_MAX_SUITE_BYTES)


def _cap(variable: str, default: int) -> int:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise HarnessError(f"${variable} is {text!r}, not a whole number of at least 1",
                           hint=f"Set it to a number such as {default}, or unset it for that default.")
    return value
