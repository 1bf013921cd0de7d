"""The `harness` command: `main` and the parser. Every subcommand calls the same functions as the Python API.

Each subcommand is one module here (`NAME`, `HELP`, `add_arguments(parser)`, `handle(args) -> exit code`);
options several share live in `options`, exit codes in `exit_codes`. User mistakes (`HarnessError`, and
usage errors such as an unknown option) are printed as one paragraph with exit code 3, never as a traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from harness.cli import (bench, ci, compare, explain, export, ingest, ls, plan, report, reproduce, run, schema, score,
                         site, sys_info, validate)
from harness.cli.exit_codes import BROKEN_PIPE_EXIT, INTERRUPTED_EXIT, RUNS_FAILED_EXIT
from harness.cli.options import UsageParser, add_plugin
from harness.errors import USER_ERROR_EXIT, HarnessError

# In the order `harness --help` lists them.
COMMANDS = (validate, plan, run, score, ls, export, ingest, report, explain, site, compare, ci, reproduce, bench,
            schema, sys_info)

__all__ = ["BROKEN_PIPE_EXIT", "COMMANDS", "INTERRUPTED_EXIT", "RUNS_FAILED_EXIT", "build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.command(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USER_ERROR_EXIT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except BrokenPipeError:
        # What is left in stdout's buffer can never be written: point stdout at /dev/null so the
        # interpreter's final flush does not fail again (Python's documented recipe for SIGPIPE). A stdout
        # without a file descriptor (an embedding caller's buffer) has nothing to redirect.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_EXIT


def build_parser() -> argparse.ArgumentParser:
    """The whole command line; public so that a CLI reference can be generated from it."""
    from harness import __version__

    parser = UsageParser(prog="harness", description="Benchmark and evaluation harness for ICLR-2026 methods.")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    for command in COMMANDS:
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        p.set_defaults(command=command.handle)
        add_plugin(p)
        command.add_arguments(p)
    return parser
