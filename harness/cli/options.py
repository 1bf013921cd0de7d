"""The parser class and the options several subcommands share, each defined once."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from harness.errors import USER_ERROR_EXIT


class UsageParser(argparse.ArgumentParser):
    """argparse exits 2 on a usage mistake, but 2 means failed runs here: usage mistakes are bad input (3)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USER_ERROR_EXIT, f"{self.prog}: error: {message}\n")


def at_least(minimum: int) -> Callable[[str], int]:
    """An int option that rejects values below `minimum` when parsed (`--jobs 0` once waited forever)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def add_plugin(parser: argparse.ArgumentParser) -> None:
    """Every subcommand takes plugins: a suite may name methods only a plugin registers."""
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                        help="a Python file registering extra methods/datasets/metrics (repeatable)")


def load_plugins(args: argparse.Namespace) -> None:
    from harness.runner import load_plugins as load

    load(tuple(args.plugin))


def add_store(parser: argparse.ArgumentParser) -> None:
    from harness.store import DEFAULT_STORE

    parser.add_argument("--store", type=Path, default=DEFAULT_STORE,
                        help=f"results database (default {DEFAULT_STORE})")


def add_data_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-root", type=Path, default=None,
                        help="folder holding dataset files (default: $HARNESS_DATA_ROOT, else ./data)")


def add_suite(parser: argparse.ArgumentParser) -> None:
    """A suite file, the store its runs go to and the data root its datasets are read from."""
    parser.add_argument("suite", type=Path)
    add_store(parser)
    add_data_root(parser)


def add_comparison_output(parser: argparse.ArgumentParser) -> None:
    """The verdict options of `compare` and `ci`, which print the same comparison."""
    parser.add_argument("--strict", action="store_true", help="also fail (exit 1) on incomparable or missing cells")
    parser.add_argument("--format", choices=["text", "md", "json"], default="text",
                        help="text (default), md (a PR comment) or json")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the output here (the table still goes to stdout)")
