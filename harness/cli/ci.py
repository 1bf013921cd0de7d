"""`harness ci`: run a suite (resuming), then compare it with a baseline, as a CI job gates on it."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.compare import emit_comparison
from harness.cli.exit_codes import INTERRUPTED_EXIT, RESUME_HINT
from harness.cli.options import add_comparison_output, add_data_root, add_store, at_least

NAME = "ci"
HELP = "run a suite (resuming), then compare it with a baseline under the suite's rules"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suite", type=Path)
    parser.add_argument("--baseline", required=True, help="a store, an export, or REF:PATH, as for `compare`")
    add_store(parser)
    add_data_root(parser)
    parser.add_argument("--jobs", "-j", type=at_least(1), default=1, help="parallel worker processes")
    add_comparison_output(parser)
    parser.add_argument("--claims", action="store_true",
                        help="also gate the suite's claims: one the baseline supports must stay supported (on "
                             "other numerics, or keep its mean gain within the baseline's seed spread), and one "
                             "whose check or runs changed since the baseline fails (exit 1)")


def handle(args: argparse.Namespace) -> int:
    from harness.comparison import run_ci
    from harness.runner import RunOptions

    options = RunOptions(store=args.store, jobs=args.jobs, data_root=args.data_root, plugins=tuple(args.plugin))
    outcome, comparison = run_ci(args.suite, args.baseline, options)
    if comparison is None:
        print(RESUME_HINT, file=sys.stderr)
        return INTERRUPTED_EXIT
    print(outcome.summary())
    exit_code = emit_comparison(comparison, args)
    if not args.claims:
        return exit_code
    from harness.comparison.claim_gate import claim_changes, render_claim_changes

    changes = claim_changes(args.suite, args.baseline, args.store, args.data_root)
    print(render_claim_changes(changes), end="")
    return exit_code or int(any(change.fails for change in changes))
