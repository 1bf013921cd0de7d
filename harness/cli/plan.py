"""`harness plan`: the runs a suite expands to, and which of them the store already holds."""
from __future__ import annotations

import argparse

from harness.cli.options import add_suite, load_plugins

NAME = "plan"
HELP = "list the runs a suite expands to, and which are stored"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)


def handle(args: argparse.Namespace) -> int:
    from harness.runner import plan_suite
    from harness.store import Store

    load_plugins(args)
    _, planned = plan_suite(args.suite, args.data_root)
    stored: dict[str, str] = {}
    if args.store.exists():
        with Store(args.store, read_only=True) as store:
            stored = store.stored_statuses(r.run_key for r in planned)
    print(f"{'run_key':<16}  {'method':<28} {'dataset':<16} {'seed':>4}  stored")
    for run in planned:
        status = stored.get(run.run_key, "-")
        print(f"{run.run_key:<16}  {run.method:<28} {run.dataset.name:<16} {run.seed:>4}  {status}")
    done = sum(r.run_key in stored for r in planned)
    print(f"{len(planned)} runs, {done} stored, {len(planned) - done} to run")
    return 0
