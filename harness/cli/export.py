"""`harness export`: stored runs as one Parquet or CSV file (the layout `compare` reads as a baseline)."""
from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.options import add_data_root, add_store, load_plugins
from harness.errors import HarnessError
from harness.output_paths import writing_outputs
from harness.record_json import RecordJson

if TYPE_CHECKING:
    from harness.store import Store

NAME = "export"
HELP = "write stored runs to a Parquet or CSV file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store(parser)
    parser.add_argument("--format", choices=["parquet", "csv"], default="csv")
    parser.add_argument("--suite", default=None, metavar="SUITE",
                        help="only this suite's runs: a suite file selects its planned runs, shared ones included, "
                             "as plan and report do; a name selects the runs executed under that name")
    add_data_root(parser)
    parser.add_argument("--out", type=Path, required=True)


def handle(args: argparse.Namespace) -> int:
    from harness.results import export_frame
    from harness.spreadsheet_cells import quoted_text
    from harness.store import Store

    load_plugins(args)
    with Store(args.store, read_only=True) as store:
        frame = export_frame(_exported_runs(store, args.suite, args.data_root))
        if frame.empty:
            raise _nothing_to_export(store, args.suite)
    with writing_outputs(args.out):
        args.out.parent.mkdir(parents=True, exist_ok=True)
        if args.format == "parquet":
            frame.to_parquet(args.out, index=False)
        else:
            quoted_text(frame).to_csv(args.out, index=False)  # names as text, not formulas, in a spreadsheet
    print(f"wrote {len(frame)} runs to {args.out}")
    return 0


def _exported_runs(store: Store, suite: str | None, root: Path | None) -> Iterable[RecordJson]:
    """Runs are shared between suites (`harness.suite_runs`): a suite file's runs are its planned run keys."""
    if suite is None or not Path(suite).is_file():
        return store.records(suite=suite)
    from harness.suite import load_suite
    from harness.suite_runs import stored_selection

    return stored_selection(*load_suite(suite), root, store)[0]


def _nothing_to_export(store: Store, suite: str | None) -> HarnessError:
    """An export that would write an empty file is more likely a wrong --store or --suite than a wish."""
    if suite is None:
        return HarnessError(f"store {store.path} holds no runs; nothing was written", hint="Run a suite into it first.")
    names = sorted({r["suite"] for r in store.records()})
    return HarnessError(f"store {store.path} holds no runs of suite '{suite}'; nothing was written", field="--suite",
                        hint="Give the suite's file, or one of the names this store holds: "
                             f"{', '.join(names) or 'none'}.")
