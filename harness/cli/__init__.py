"""The `harness` command: `main` and the parser (`command_line`). Every subcommand calls the same functions as the
Python API.

Each subcommand is one module here (`NAME`, `HELP`, `add_arguments(parser)`, `handle(args) -> exit code`);
options several share live in `options`, exit codes in `exit_codes`, what printing guards against in `streams`.
User mistakes (`HarnessError`, and usage errors such as an unknown option) are printed as one paragraph with exit
code 3, never as a traceback. The names below are imported on first use: `python -m harness.cli` loads this
package before `harness.entry_point` handles Ctrl-C.
"""
from typing import TYPE_CHECKING

from harness.lazy_names import imported_on_first_use

if TYPE_CHECKING:
    from harness.cli.command_line import COMMANDS, build_parser, main
    from harness.cli.exit_codes import BROKEN_PIPE_EXIT, INTERRUPTED_EXIT, RUNS_FAILED_EXIT, STREAM_FAILED_EXIT

__getattr__ = imported_on_first_use(globals(), {
    "COMMANDS": "harness.cli.command_line", "build_parser": "harness.cli.command_line",
    "main": "harness.cli.command_line", "BROKEN_PIPE_EXIT": "harness.cli.exit_codes",
    "INTERRUPTED_EXIT": "harness.cli.exit_codes", "RUNS_FAILED_EXIT": "harness.cli.exit_codes",
    "STREAM_FAILED_EXIT": "harness.cli.exit_codes",
})

__all__ = ["BROKEN_PIPE_EXIT", "COMMANDS", "INTERRUPTED_EXIT", "RUNS_FAILED_EXIT", "STREAM_FAILED_EXIT",
           "build_parser", "main"]
