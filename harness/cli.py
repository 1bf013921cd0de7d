"""The `harness` command. Every subcommand calls the same functions as the Python API.

User mistakes (`HarnessError`, and usage errors such as an unknown option) are printed
as one paragraph with exit code 3, never as a traceback. Exit codes: 0 success, 1 a
regression (`compare`, `ci`), 2 some runs failed, 3 bad input, 130 interrupted, 141 the
reader of the output went away (`harness plan ... | head`), as for any Unix tool.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from harness.errors import USER_ERROR_EXIT, HarnessError

if TYPE_CHECKING:
    from harness.comparison import Comparison
    from harness.store import Store

RUNS_FAILED_EXIT = 2
INTERRUPTED_EXIT = 130
BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        code = args.command(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USER_ERROR_EXIT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except BrokenPipeError:
        # What is left in stdout's buffer can never be written: point stdout at /dev/null so the
        # interpreter's final flush does not fail again (Python's documented recipe for SIGPIPE).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_EXIT


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on a usage mistake, but 2 means failed runs here: usage mistakes are bad input (3)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USER_ERROR_EXIT, f"{self.prog}: error: {message}\n")


def _at_least(minimum: int) -> Callable[[str], int]:
    """An int option that rejects values below `minimum` when parsed (`--jobs 0` once waited forever)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    from harness import __version__
    from harness.store import DEFAULT_STORE

    parser = _Parser(prog="harness", description="Benchmark and evaluation harness for ICLR-2026 methods.")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def command(name: str, handler, help_text: str) -> argparse.ArgumentParser:  # noqa: ANN001
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(command=handler)
        p.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                       help="a Python file registering extra methods/datasets/metrics (repeatable)")
        return p

    def with_store(p: argparse.ArgumentParser) -> None:
        p.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"results database (default {DEFAULT_STORE})")

    def with_data(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-root", type=Path, default=None,
                       help="folder holding dataset files (default: $HARNESS_DATA_ROOT, else ./data)")

    def with_comparison_output(p: argparse.ArgumentParser) -> None:
        p.add_argument("--strict", action="store_true", help="also fail (exit 1) on incomparable or missing cells")
        p.add_argument("--format", choices=["text", "md", "json"], default="text",
                       help="text (default), md (a PR comment) or json")
        p.add_argument("--out", type=Path, default=None,
                       help="write the output here (the table still goes to stdout)")

    p = command("validate", _validate, "check suite files: schema, registered names, parameters")
    p.add_argument("suites", nargs="+", type=Path)
    p = command("plan", _plan, "list the runs a suite expands to, and which are stored")
    p.add_argument("suite", type=Path)
    with_store(p)
    with_data(p)
    p = command("run", _run, "run every planned run that is not stored yet")
    p.add_argument("suite", type=Path)
    with_store(p)
    with_data(p)
    p.add_argument("--executor", default="local", help="inline | local (default) | ray | slurm | a registered one")
    p.add_argument("--jobs", "-j", type=_at_least(1), default=1, help="parallel worker processes (local executor)")
    p.add_argument("--force", action="store_true", help="re-run runs that are already stored")
    p.add_argument("--retry-failed", action="store_true", help="re-run stored runs that failed")
    p.add_argument("--retries", type=_at_least(0), default=0, help="re-submit a run whose worker or node was lost (ray, slurm)")
    p.add_argument("--ray-address", default=None, help="address of a running Ray cluster (default: start a local one)")
    p.add_argument("--slurm-partition", default=None, help="default Slurm partition (methods may name their own)")
    p.add_argument("--slurm-max-concurrent", type=_at_least(1), default=64, help="cap on concurrently running array tasks")
    p = command("score", _score, "score predictions (bring-your-own, or stored ones under new metrics); runs nothing")
    p.add_argument("suite", type=Path)
    with_store(p)
    with_data(p)
    p.add_argument("--force", action="store_true", help="re-score runs that are already stored")
    p = command("ls", _ls, "list registered tasks, datasets, metrics, methods or executors")
    p.add_argument("kind", nargs="?", default="methods", choices=["tasks", "datasets", "metrics", "methods", "executors"])
    p = command("export", _export, "write stored runs to a Parquet or CSV file")
    with_store(p)
    p.add_argument("--format", choices=["parquet", "csv"], default="csv")
    p.add_argument("--suite", default=None, metavar="SUITE",
                   help="only this suite's runs: a suite file selects its planned runs, shared ones included, "
                        "as plan and report do; a name selects the runs executed under that name")
    with_data(p)
    p.add_argument("--out", type=Path, required=True)
    p = command("ingest", _ingest, "store the record files under DIR (a run folder); idempotent")
    p.add_argument("folder", type=Path, metavar="DIR")
    with_store(p)
    p = command("report", _report, "render a suite's report from the store (Markdown, LaTeX, CSV, HTML, plots)")
    p.add_argument("suite", type=Path)
    with_store(p)
    with_data(p)
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: reports/<suite name> beside the store's folder)")
    p.add_argument("--format", default="md,tex,csv,html,png,pdf", help="comma-separated: md,tex,csv,html,png,pdf")
    p.add_argument("--interval", choices=["t", "bootstrap"], default="t", help="95%% interval over seeds")
    p.add_argument("--bootstrap", type=_at_least(0), default=0, metavar="N",
                   help="also compute a within-run bootstrap stderr from N resamples of each run's test samples")
    p.add_argument("--runs", type=Path, default=None, metavar="FILE",
                   help="render from this export of the suite's runs (e.g. a committed reports/<suite>/runs.csv) "
                        "instead of the store")
    p = command("compare", _compare, "compare two sets of results cell by cell; exit 1 on a regression, 2 on failures")
    p.add_argument("base", help="a store (.sqlite), an export (.csv/.parquet), or REF:PATH (an export at a git ref)")
    p.add_argument("cand", help="the candidate, in the same forms")
    p.add_argument("--suite", type=Path, default=None,
                   help="suite file giving regression rules and metric directions; selects its runs")
    p.add_argument("--suite-name", default=None, help="compare only the runs stored under this suite name")
    with_data(p)
    with_comparison_output(p)
    p = command("ci", _ci, "run a suite (resuming), then compare it with a baseline under the suite's rules")
    p.add_argument("suite", type=Path)
    p.add_argument("--baseline", required=True, help="a store, an export, or REF:PATH, as for `compare`")
    with_store(p)
    with_data(p)
    p.add_argument("--jobs", "-j", type=_at_least(1), default=1, help="parallel worker processes")
    with_comparison_output(p)
    command("schema", _schema, "print the suite file's JSON Schema")
    command("sys-info", _sys_info, "print this machine's environment as the store records it")
    return parser


def _load_plugins(args: argparse.Namespace) -> None:
    from harness.runner import load_plugins

    load_plugins(tuple(args.plugin))


def _validate(args: argparse.Namespace) -> int:
    from harness.validate import validate_suite

    _load_plugins(args)
    failures = 0
    for path in args.suites:
        try:
            count, warnings = validate_suite(path)
            print(f"ok: {path} ({count} method variants)")
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
        except HarnessError as exc:
            failures += 1
            print(f"error: {exc}", file=sys.stderr)
    return USER_ERROR_EXIT if failures else 0


def _plan(args: argparse.Namespace) -> int:
    from harness.runner import plan_suite
    from harness.store import Store

    _load_plugins(args)
    suite, planned = plan_suite(args.suite, args.data_root)
    stored: dict[str, str] = {}
    if args.store.exists():
        with Store(args.store, read_only=True) as store:
            stored = store.stored_statuses(r.run_key for r in planned)
    print(f"{'run_key':<16}  {'method':<28} {'dataset':<16} {'seed':>4}  stored")
    for run in planned:
        print(f"{run.run_key:<16}  {run.method:<28} {run.dataset.name:<16} {run.seed:>4}  {stored.get(run.run_key, '-')}")
    done = sum(r.run_key in stored for r in planned)
    print(f"{len(planned)} runs, {done} stored, {len(planned) - done} to run")
    return 0


def _run(args: argparse.Namespace) -> int:
    from harness.runner import RunOptions, run_suite

    options = RunOptions(store=args.store, executor=args.executor, jobs=args.jobs, force=args.force,
                         retry_failed=args.retry_failed, data_root=args.data_root, plugins=tuple(args.plugin),
                         retries=args.retries, ray_address=args.ray_address, slurm_partition=args.slurm_partition,
                         slurm_max_concurrent=args.slurm_max_concurrent)
    outcome = run_suite(args.suite, options)
    print(outcome.summary())
    from harness.summary_table import print_summary  # scipy and pandas: imported once the runs are done

    print_summary(outcome.suite, outcome.planned, args.store)
    if outcome.interrupted:
        print("interrupted: finished runs are stored; run the same command again to resume", file=sys.stderr)
        return INTERRUPTED_EXIT
    return RUNS_FAILED_EXIT if outcome.any_failed else 0


def _score(args: argparse.Namespace) -> int:
    from harness.runner import plan_suite
    from harness.scoring import score_runs
    from harness.store import Store
    from harness.summary_table import print_summary

    _load_plugins(args)
    suite, planned = plan_suite(args.suite, args.data_root)
    with Store(args.store) as store:
        outcome = score_runs(planned, store, force=args.force)
    failed = sum(r["status"] != "ok" for r in outcome.scored)
    print(f"suite {suite.suite}: {len(outcome.scored)} runs scored ({failed} failed), "
          f"{len(outcome.unavailable)} have no predictions yet (use `harness run`)")
    print_summary(suite, planned, args.store)
    return RUNS_FAILED_EXIT if failed else 0


def _ls(args: argparse.Namespace) -> int:
    from harness.registry import REGISTRIES

    _load_plugins(args)
    entries = REGISTRIES[args.kind].entries()
    width = max((len(e.name) for e in entries), default=0)
    for entry in entries:
        print(f"{entry.name:<{width}}  {entry.description}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from harness.results import export_frame
    from harness.store import Store

    _load_plugins(args)
    with Store(args.store, read_only=True) as store:
        frame = export_frame(_exported_runs(store, args.suite, args.data_root))
        if frame.empty:
            raise _nothing_to_export(store, args.suite)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.format == "parquet":
        frame.to_parquet(args.out, index=False)
    else:
        frame.to_csv(args.out, index=False)
    print(f"wrote {len(frame)} runs to {args.out}")
    return 0


def _exported_runs(store: Store, suite: str | None, root: Path | None) -> Iterable[dict[str, Any]]:
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
                        hint=f"Give the suite's file, or one of the names this store holds: {', '.join(names) or 'none'}.")


def _ingest(args: argparse.Namespace) -> int:
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


def _report(args: argparse.Namespace) -> int:
    from harness.reporting.load import load_report
    from harness.reporting.render import parse_formats, write_report

    _load_plugins(args)
    formats = parse_formats(args.format)
    data = load_report(args.suite, args.store, args.data_root, args.interval, args.bootstrap, args.runs)
    out = args.out or args.store.parent / "reports" / data.suite.suite
    written = write_report(data, out, formats)
    print(f"report of suite {data.suite.suite} ({data.provenance.runs} runs) written to {out}/: "
          + ", ".join(p.name for p in written))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from harness.comparison import compare_sources

    _load_plugins(args)
    return _emit_comparison(compare_sources(args.base, args.cand, args.suite, args.suite_name, args.data_root), args)


def _ci(args: argparse.Namespace) -> int:
    from harness.comparison import run_ci
    from harness.runner import RunOptions

    options = RunOptions(store=args.store, jobs=args.jobs, data_root=args.data_root, plugins=tuple(args.plugin))
    outcome, comparison = run_ci(args.suite, args.baseline, options)
    if comparison is None:
        print("interrupted: finished runs are stored; run the same command again to resume", file=sys.stderr)
        return INTERRUPTED_EXIT
    print(outcome.summary())
    return _emit_comparison(comparison, args)


def _emit_comparison(comparison: Comparison, args: argparse.Namespace) -> int:
    from harness.comparison import render, verdict

    outcome = verdict(comparison, strict=args.strict)
    if args.out is None:
        print(render(comparison, outcome, args.format), end="")
        return outcome.exit_code
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(comparison, outcome, args.format))
    print(render(comparison, outcome, "text"), end="")
    print(f"wrote {args.out}")
    return outcome.exit_code


def _schema(args: argparse.Namespace) -> int:
    from harness.suite import json_schema

    print(json.dumps(json_schema(), indent=2))
    return 0


def _sys_info(args: argparse.Namespace) -> int:
    from harness.environment import environment

    print(json.dumps(environment(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
