"""`harness validate`: check suite files without running anything; every file is checked, then one exit code."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.options import load_plugins
from harness.errors import USER_ERROR_EXIT, HarnessError

NAME = "validate"
HELP = "check suite files: schema, registered names, parameters"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, default=None,
                        help="also warn, naming each, of the claims added or edited after this store held results "
                             "of the suite (read only)")


def handle(args: argparse.Namespace) -> int:
    from harness.validate import validate_suite

    load_plugins(args)
    failures = 0
    for path in args.suites:
        try:
            count, warnings = validate_suite(path, store=args.store)
            print(f"ok: {path} ({count} method variants)")
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
        except HarnessError as exc:
            failures += 1
            print(f"error: {exc}", file=sys.stderr)
    return USER_ERROR_EXIT if failures else 0
