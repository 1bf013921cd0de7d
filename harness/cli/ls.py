"""`harness ls`: what the registries hold (built-in families and plugins), one name and description a line."""
from __future__ import annotations

import argparse

from harness.cli.options import load_plugins

NAME = "ls"
HELP = "list registered tasks, datasets, metrics, methods or executors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", nargs="?", default="methods",
                        choices=["tasks", "datasets", "metrics", "methods", "executors"])


def handle(args: argparse.Namespace) -> int:
    from harness.registry import REGISTRIES

    load_plugins(args)
    entries = REGISTRIES[args.kind].entries()
    width = max((len(e.name) for e in entries), default=0)
    for entry in entries:
        print(f"{entry.name:<{width}}  {entry.description}")
    return 0
