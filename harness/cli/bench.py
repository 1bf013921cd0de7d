"""`harness bench`: instruction counts of pytest-benchmark tests under Valgrind, a speed figure for CI gates
that neither load nor the CPU model moves (`harness.instruction_counts`), which `harness compare` gates; or,
with `--base REF`, wall times of a base commit and the working tree timed in turns within this job and gated
at once (`harness.wall_alternation`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.options import at_least

NAME = "bench"
HELP = ("count the instructions of pytest-benchmark tests under Valgrind (`compare` gates two such files); or "
        "gate their wall times against a base commit, timed in turns")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tests", nargs="+", metavar="TEST", help="benchmark files or node ids, as pytest takes them")
    parser.add_argument("-k", dest="keyword", metavar="EXPR", help="only the benchmarks matching it (pytest's -k)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the JSON file to write (required for instruction counts)")
    parser.add_argument("--base", metavar="REF", default=None,
                        help="time wall clock instead, in turns with this commit checked out apart; exit 1 on a "
                             "regression (Mann-Whitney p < 0.002 and the best rounds > 1.10 apart)")
    parser.add_argument("--rounds", type=at_least(1), default=7, help="rounds a side with --base (at least 7)")


def handle(args: argparse.Namespace) -> int:
    selection = [*args.tests, *(["-k", args.keyword] if args.keyword else [])]
    if args.base is not None:
        return _alternate(args, selection)
    from harness.errors import HarnessError
    from harness.instruction_counts import count_benchmarks

    if args.out is None:
        raise HarnessError("counting instructions needs --out FILE.json", field="--out",
                           hint="Give the file to write, or --base REF to gate wall times against a commit.")
    from harness.output_paths import writing_outputs

    counts = count_benchmarks(selection, Path.cwd())
    with writing_outputs(args.out):
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(counts.model_dump_json(indent=2) + "\n")
    print(f"wrote {args.out}: {len(counts.benchmarks)} benchmark(s)")
    return 0


def _alternate(args: argparse.Namespace, selection: list[str]) -> int:
    import json
    from dataclasses import asdict

    from harness.output_paths import writing_outputs
    from harness.wall_alternation import alternate

    timings = alternate(args.base, selection, Path.cwd(), args.rounds)
    for timing in timings:
        print(timing.line())
    if args.out is not None:
        with writing_outputs(args.out):
            args.out.write_text(json.dumps([asdict(t) | {"verdict": t.verdict} for t in timings], indent=1) + "\n")
    return 1 if any(t.verdict in ("regressed", "missing") for t in timings) else 0
