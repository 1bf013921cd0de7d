"""`harness site`: one static leaderboard site for many suites, from a store or from the committed exports."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from harness.cli.options import add_data_root, load_plugins
from harness.output_paths import writing_outputs

NAME = "site"
HELP = "build a static leaderboard site (index, a page per suite, a page per method) from runs; runs nothing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", metavar="SUITE",
                        help="suites to show, by name (suites/<name>.yaml) or file (default: every suite with runs)")
    parser.add_argument("--out", type=Path, required=True, help="output folder; open its index.html")
    parser.add_argument("--store", type=Path, default=None,
                        help="read runs from this results database (default: each suite's committed export, "
                             "reports/<suite>/runs.csv)")
    add_data_root(parser)
    parser.add_argument("--suites-dir", type=Path, default=Path("suites"), metavar="DIR",
                        help="where suites are found by name")
    parser.add_argument("--reports-dir", type=Path, default=Path("reports"), metavar="DIR",
                        help="where the committed exports are: <DIR>/<suite>/runs.csv")
    parser.add_argument("--plots", action="store_true",
                        help="embed each suite's plots in its page (matplotlib: slower)")


def handle(args: argparse.Namespace) -> int:
    from harness.reporting.explain_page import explain_source
    from harness.reporting.site import site_footer, write_site
    from harness.reporting.site_model import build_site
    from harness.reporting.site_sources import committed_sources, load_reports, stored_sources
    from harness.store import DEFAULT_STORE

    load_plugins(args)
    started = time.perf_counter()
    if args.store is None:
        sources = committed_sources(args.suites_dir, args.reports_dir, args.suites)
        built_from = f"the exports in {args.reports_dir}/"
    else:
        sources = stored_sources(args.suites_dir, args.store, args.suites)
        built_from = f"the store {args.store}"
    reports = load_reports(sources, args.store or DEFAULT_STORE, args.data_root)
    site = build_site(reports)
    explain_sources = {data.suite.suite: explain_source(source.suite_file, source.runs_file, args.store,
                                                        args.data_root, args.plugin)
                       for source, data in zip(sources, reports, strict=True)}  # one report per source, in order
    with writing_outputs(args.out):
        written = write_site(site, args.out, site_footer(built_from), plots=args.plots,
                             explain_sources=explain_sources)
    print(f"site of {len(site.suites)} suites and {len(site.methods)} methods ({len(written)} pages) written to "
          f"{args.out}/ in {time.perf_counter() - started:.1f} s: open {args.out / 'index.html'}")
    return 0
