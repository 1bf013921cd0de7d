"""`harness report`: render a suite's report from the store, or from an export of its runs; runs nothing."""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.options import add_suite, at_least, load_plugins
from harness.output_paths import writing_outputs

if TYPE_CHECKING:
    from harness.reporting.model import ReportData

NAME = "report"
HELP = "render a suite's report from the store (Markdown, LaTeX, CSV, HTML, plots)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_suite(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: reports/<suite name> beside the store's folder)")
    parser.add_argument("--format", default="md,tex,csv,html,png,pdf", help="comma-separated: md,tex,csv,html,png,pdf")
    parser.add_argument("--interval", choices=["t", "bootstrap"], default="t", help="95%% interval over seeds")
    parser.add_argument("--bootstrap", type=at_least(0), default=0, metavar="N",
                        help="also compute a within-run bootstrap stderr from N resamples of each run's test samples")
    parser.add_argument("--runs", type=Path, default=None, metavar="FILE",
                        help="render from this export of the suite's runs (e.g. a committed reports/<suite>/runs.csv) "
                             "instead of the store")
    parser.epilog = ("A `harness reproduce` result in the output folder (reproduce.json) is cited in the footer, "
                     "for the sampled runs still in the report.")


def with_reproduction(data: "ReportData", path: Path) -> "ReportData":
    """`data` whose footer cites the `harness reproduce` result kept at `path` (beside the report), if any."""
    from harness.reproduce import read_reproduction

    if not path.is_file():
        return data
    footer = read_reproduction(path).footer({record["run_id"] for record in data.records})
    return replace(data, provenance=replace(data.provenance, reproduction=footer))


def handle(args: argparse.Namespace) -> int:
    from harness.file_names import file_safe
    from harness.reporting.load import load_report
    from harness.reporting.render import parse_formats, write_report
    from harness.reproduce import REPRODUCTION_FILE

    load_plugins(args)
    formats = parse_formats(args.format)
    data = load_report(args.suite, args.store, args.data_root, args.interval, args.bootstrap, args.runs)
    out = args.out or args.store.parent / "reports" / file_safe(data.suite.suite)
    data = with_reproduction(data, out / REPRODUCTION_FILE)
    with writing_outputs(out):
        written = write_report(data, out, formats)
    print(f"report of suite {data.suite.suite} ({data.provenance.runs} runs) written to {out}/: "
          + ", ".join(p.name for p in written))
    return 0
