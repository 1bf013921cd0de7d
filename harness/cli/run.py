"""`harness run`: run what the store lacks, then print the results table."""
from __future__ import annotations

import argparse
import sys

from harness.cli.exit_codes import INTERRUPTED_EXIT, RESUME_HINT, RUNS_FAILED_EXIT
from harness.cli.options import add_suite, at_least

NAME = "run"
HELP = "run every planned run that is not stored yet"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)
    parser.add_argument("--executor", default="local", help="inline | local (default) | ray | slurm | a registered one")
    parser.add_argument("--jobs", "-j", type=at_least(1), default=1,
                        help="parallel worker processes (local executor); at most one per CPU and per queued run")
    parser.add_argument("--force", action="store_true", help="re-run runs that are already stored")
    parser.add_argument("--retry-failed", action="store_true", help="re-run stored runs that failed")
    parser.add_argument("--retries", type=at_least(0), default=0,
                        help="re-submit a run whose worker or node was lost (ray, slurm)")
    parser.add_argument("--ray-address", default=None,
                        help="address of a running Ray cluster (default: start a local one)")
    parser.add_argument("--slurm-partition", default=None, help="default Slurm partition (methods may name their own)")
    parser.add_argument("--slurm-max-concurrent", type=at_least(1), default=64,
                        help="cap on concurrently running array tasks")


def handle(args: argparse.Namespace) -> int:
    from harness.runner import RunOptions, run_suite

    options = RunOptions(store=args.store, executor=args.executor, jobs=args.jobs, force=args.force,
                         retry_failed=args.retry_failed, data_root=args.data_root, plugins=tuple(args.plugin),
                         retries=args.retries, ray_address=args.ray_address, slurm_partition=args.slurm_partition,
                         slurm_max_concurrent=args.slurm_max_concurrent)
    outcome = run_suite(args.suite, options)
    print(outcome.summary())
    from harness.summary_table import print_summary  # scipy and pandas: imported once the runs are done

    print_summary(outcome.suite, outcome.planned, args.store)
    if outcome.interrupted:
        print(RESUME_HINT, file=sys.stderr)
        return INTERRUPTED_EXIT
    return RUNS_FAILED_EXIT if outcome.any_failed else 0
