"""`harness sys-info`: this machine's environment, exactly as the store records it beside each run."""
from __future__ import annotations

import argparse
import json

NAME = "sys-info"
HELP = "print this machine's environment as the store records it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """It takes no arguments of its own (only `--plugin`, as every subcommand)."""


def handle(args: argparse.Namespace) -> int:
    from harness.environment import environment

    print(json.dumps(environment(), indent=2))
    return 0
