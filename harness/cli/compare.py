"""`harness compare`: two sets of results cell by cell under a suite's regression rules, or two pytest-benchmark
(instruction-count) files benchmark by benchmark under `--max-ratio`; exit 1 on a regression."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.options import add_comparison_output, add_data_root, load_plugins
from harness.output_paths import writing_outputs

if TYPE_CHECKING:
    from harness.comparison import Comparison

NAME = "compare"
HELP = "compare two sets of results, or two pytest-benchmark files, cell by cell; exit 1 on a regression, 2 on failures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base",
                        help="a store (.sqlite), an export (.csv/.parquet), or REF:PATH (an export at a git ref); "
                             "or pytest-benchmark JSON: FILE.json, a .benchmarks folder (its newest run), "
                             "FOLDER@ID (a saved run: 0003, 0003_name), REF:PATH.json; or a `harness bench` file")
    parser.add_argument("cand", help="the candidate, in the same forms")
    parser.add_argument("--suite", type=Path, default=None,
                        help="suite file giving regression rules and metric directions; selects its runs")
    parser.add_argument("--suite-name", default=None, help="compare only the runs stored under this suite name")
    parser.add_argument("--max-ratio", type=_ratio, default=None,
                        help="pytest-benchmark files: the factor a benchmark's median time may grow (or shrink) by "
                             "before it has regressed (improved) (default 1.5); instruction-count files: the same for "
                             "its estimated cycles per call (default 1.02)")
    add_data_root(parser)
    add_comparison_output(parser)


def handle(args: argparse.Namespace) -> int:
    from harness.comparison import compare_sources

    load_plugins(args)
    comparison = compare_sources(args.base, args.cand, args.suite, args.suite_name, args.data_root, args.max_ratio)
    return emit_comparison(comparison, args)


def _ratio(text: str) -> float:
    """A ratio of times: 1 or more (2.5 allows a benchmark to take 2.5 times as long)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def emit_comparison(comparison: Comparison, args: argparse.Namespace) -> int:
    """Print (and with `--out` also write) the comparison in the chosen format; its verdict is the exit code."""
    from harness.comparison import render, verdict

    outcome = verdict(comparison, strict=args.strict)
    if args.out is None:
        print(render(comparison, outcome, args.format), end="")
        return outcome.exit_code
    with writing_outputs(args.out):
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(render(comparison, outcome, args.format))
    print(render(comparison, outcome, "text"), end="")
    print(f"wrote {args.out}")
    return outcome.exit_code
