"""`harness bench`: instruction counts of pytest-benchmark tests under Valgrind, a speed figure for CI gates
that neither load nor the CPU model moves (`harness.instruction_counts`); `harness compare` gates two files."""
from __future__ import annotations

import argparse
from pathlib import Path

NAME = "bench"
HELP = "count the instructions of pytest-benchmark tests under Valgrind; `compare` gates two such files"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tests", nargs="+", metavar="TEST", help="benchmark files or node ids, as pytest takes them")
    parser.add_argument("-k", dest="keyword", metavar="EXPR", help="only the benchmarks matching it (pytest's -k)")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")


def handle(args: argparse.Namespace) -> int:
    from harness.instruction_counts import count_benchmarks

    selection = [*args.tests, *(["-k", args.keyword] if args.keyword else [])]
    counts = count_benchmarks(selection, Path.cwd())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(counts.model_dump_json(indent=2) + "\n")
    print(f"wrote {args.out}: {len(counts.benchmarks)} benchmark(s)")
    return 0
