"""`harness explain`: the runs behind one cell of a suite's report and the arithmetic from them to the cell."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.cli.options import add_suite, load_plugins

NAME = "explain"
HELP = "show the runs behind one cell of a suite's report and how the cell is computed from them; runs nothing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)
    parser.add_argument("method", help="the row label as the report shows it (a grid's variant: name[param=value])")
    parser.add_argument("dataset")
    parser.add_argument("metric", nargs="?", default=None,
                        help="one metric or measure of the report (default: each of the suite's quality metrics)")
    parser.add_argument("--runs", type=Path, default=None, metavar="FILE",
                        help="read the runs from this export (e.g. a committed reports/<suite>/runs.csv) "
                             "instead of the store")
    parser.add_argument("--interval", choices=["t", "bootstrap"], default="t",
                        help="95%% interval over seeds, as `harness report --interval` computes it")
    parser.add_argument("--json", action="store_true", help="print the explanation as JSON")


def handle(args: argparse.Namespace) -> int:
    from harness.explain import explain, explanation_json, explanation_text
    from harness.reporting.load import load_report

    load_plugins(args)
    data = load_report(args.suite, args.store, args.data_root, args.interval, runs_file=args.runs)
    explanation = explain(data, args.method, args.dataset, [args.metric] if args.metric else [],
                          store=None if args.runs else args.store)
    if args.json:
        print(json.dumps(explanation_json(explanation), indent=1, allow_nan=False))
    else:
        print(explanation_text(explanation), end="")
    return 0
