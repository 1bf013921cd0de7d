"""The `harness` process: Ctrl-C and SIGTERM end it with "interrupted" and exit 130, from its first import on.

`python -m harness`, `python -m harness.cli` and the `harness` script start here. A Ctrl-C in the first 0.3 s
used to print a traceback: it came while the command's modules were imported, before `harness.cli.main` could
catch it. So this module imports nothing of the harness until it is ready for one (and `import harness` loads
its public names on first use). SIGTERM (what `kill`, Slurm and container runtimes send) takes Ctrl-C's path:
`harness run` keeps the runs that finished, stops its workers and says how to resume.
"""
from __future__ import annotations

import contextlib
import signal
import sys
from types import FrameType

# `harness.cli.exit_codes.INTERRUPTED_EXIT`, which cannot be imported before an interrupt is handled.
_INTERRUPTED_EXIT = 128 + signal.SIGINT


def main() -> int:
    """Run the command line in `sys.argv`; its exit code."""
    _terminate_as_interrupt()
    try:
        from harness.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:  # before `cli_main` could catch it: while its modules were imported
        if sys.stderr is not None:
            with contextlib.suppress(OSError):
                print("interrupted", file=sys.stderr)
        return _INTERRUPTED_EXIT
    finally:
        _default_signals()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _terminate_as_interrupt() -> None:
    """SIGTERM raises KeyboardInterrupt, as SIGINT does; unless the process was started with SIGTERM ignored."""
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt)


def _default_signals() -> None:
    """Once the command is done, a signal ends the process at once rather than raising KeyboardInterrupt in the
    interpreter's shutdown (multiprocessing's exit handlers), where it would print a traceback."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    if signal.getsignal(signal.SIGTERM) is _interrupt:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
