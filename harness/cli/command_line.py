"""`main`, the parser and the list of subcommands: what `harness.cli` exports."""
from __future__ import annotations

import argparse

from harness.cli import (bench, ci, compare, explain, export, ingest, ls, plan, report, reproduce, run, schema, score,
                         site, sys_info, validate)
from harness.cli.exit_codes import BROKEN_PIPE_EXIT, INTERRUPTED_EXIT, STREAM_FAILED_EXIT
from harness.cli.options import UsageParser, add_plugin
from harness.cli.streams import StreamError, discard, flush_streams, tell, terminal_streams
from harness.errors import USER_ERROR_EXIT, HarnessError

# In the order `harness --help` lists them.
COMMANDS = (validate, plan, run, score, ls, export, ingest, report, explain, site, compare, ci, reproduce, bench,
            schema, sys_info)


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code. What it prints goes through `terminal_streams` (see `streams`)."""
    with terminal_streams():
        try:
            args = build_parser().parse_args(argv)
            code = args.command(args)
            flush_streams()
            return code
        except HarnessError as exc:
            tell(f"error: {exc}")
            return USER_ERROR_EXIT
        except KeyboardInterrupt:
            tell("interrupted")
            return INTERRUPTED_EXIT
        except BrokenPipeError:
            discard("stdout")
            return BROKEN_PIPE_EXIT
        except StreamError as exc:
            tell(f"error: {exc}")
            discard(exc.name)
            return STREAM_FAILED_EXIT


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
