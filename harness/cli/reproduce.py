"""`harness reproduce`: run a random sample of a report's stored runs again, into a scratch store, and say which
came back exact, within the stored seeds' interval, outside it, or failed (exit 1 on the last two)."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.options import add_suite, at_least, load_plugins

NAME = "reproduce"
HELP = "re-run a random sample of a suite's stored runs and say how closely each came back"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)
    parser.add_argument("--runs", type=Path, default=None, metavar="FILE",
                        help="take the stored runs from this export (e.g. a committed reports/<suite>/runs.csv) "
                             "instead of the store")
    parser.add_argument("--sample", type=at_least(1), default=3, metavar="N",
                        help="how many runs to re-run, stratified by method (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    parser.add_argument("--jobs", "-j", type=at_least(1), default=1, help="parallel worker processes")
    parser.add_argument("--scratch", type=Path, default=None,
                        help="keep the new runs and trained models in this folder (default: a temporary one); runs "
                             "already stored there are compared, not made again")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE.json",
                        help="also write the result here; reports/<suite>/reproduce.json is cited by the report's "
                             "footer")


def handle(args: argparse.Namespace) -> int:
    from harness.reporting.load import load_report
    from harness.reproduce import machine_metrics, reproduce, write_reproduction

    load_plugins(args)
    stored = load_report(args.suite, args.store, args.data_root, runs_file=args.runs)
    result = reproduce(args.suite, list(stored.records), args.sample, args.seed, args.data_root, args.jobs,
                       args.scratch, tuple(args.plugin), machine_metrics(stored))
    for run in result.runs:
        differences = "; ".join(f"{metric} {shown}" for metric, shown in run.differences.items())
        print(f"{run.outcome:<8} {run.method} on {run.dataset} seed {run.seed} ({run.stored_run_id[:8]} -> "
              f"{run.new_run_id[:8] or 'none'}){': ' + differences if differences else ''}")
    print("environment: " + ("; ".join(result.environment_differences) or "no recorded difference"))
    counts = result.counts()
    print(f"suite {stored.suite.suite}: {len(result.runs)} of {len(stored.records)} stored runs re-run: "
          + ", ".join(f"{n} {outcome}" for outcome, n in counts.items()))
    if args.out is not None:
        from harness.output_paths import writing_outputs

        with writing_outputs(args.out):
            write_reproduction(result, args.out)
    return 1 if counts["outside"] or counts["failed"] else 0
