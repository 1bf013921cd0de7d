"""`harness ingest`: store the record files a run folder holds (e.g. copied back from a cluster); idempotent."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.options import add_store

NAME = "ingest"
HELP = "store the record files under DIR (a run folder), removing each once stored; idempotent"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR")
    add_store(parser)


def handle(args: argparse.Namespace) -> int:
    from harness.errors import DataError
    from harness.record_files import ingest
    from harness.store import Store

    if not args.folder.is_dir():
        raise DataError(f"{args.folder} is not a folder", hint="Pass a run folder, e.g. .harness/runs/<suite>.")
    with Store(args.store) as store:
        report = ingest(args.folder, store)
    for warning in report.warnings():
        print(warning, file=sys.stderr)
    print(report.summary())
    return 0
