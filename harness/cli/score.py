"""`harness score`: score predictions already on disk (brought, or stored under new metrics); runs nothing."""
from __future__ import annotations

import argparse

from harness.cli.exit_codes import RUNS_FAILED_EXIT
from harness.cli.options import add_suite, load_plugins

NAME = "score"
HELP = "score predictions (bring-your-own, or stored ones under new metrics); runs nothing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)
    parser.add_argument("--force", action="store_true", help="re-score runs that are already stored")


def handle(args: argparse.Namespace) -> int:
    from harness.runner import plan_suite
    from harness.scoring import score_runs
    from harness.store import Store
    from harness.summary_table import print_summary

    load_plugins(args)
    suite, planned = plan_suite(args.suite, args.data_root)
    with Store(args.store) as store:
        outcome = score_runs(planned, store, force=args.force)
    failed = sum(r["status"] != "ok" for r in outcome.scored)
    print(f"suite {suite.suite}: {len(outcome.scored)} runs scored ({failed} failed), "
          f"{len(outcome.unavailable)} have no predictions yet (use `harness run`)")
    print_summary(suite, planned, args.store)
    return RUNS_FAILED_EXIT if failed else 0
