"""What `harness compare` and `harness ci` do: load two sides and classify them, or run then compare."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.comparison.benchmark_files import is_benchmark_source
from harness.comparison.benchmark_gate import DEFAULT_MAX_RATIO, compare_benchmarks
from harness.comparison.classify import Comparison, compare_frames
from harness.comparison.count_gate import DEFAULT_MAX_RATIO as COUNTS_MAX_RATIO
from harness.comparison.count_gate import compare_counts
from harness.comparison.criteria import criteria
from harness.comparison.errors import ComparisonError
from harness.comparison.sources import StoreSelection, load_results, side_of_records
from harness.curve_metrics import with_curve_metrics
from harness.instruction_counts import is_counts_file
from harness.runner import RunOptions, RunOutcome, load_plugins, run_suite
from harness.store import Store
from harness.suite import Suite, load_suite
from harness.suite_runs import stored_selection
from harness.yaml_source import YamlSource


def compare_sources(base: str, cand: str, suite_file: Path | None = None, suite_name: str | None = None,
                    data_root: Path | None = None, max_ratio: float | None = None) -> Comparison:
    """Compare two sides; a suite file supplies rules and directions and, unless `suite_name` says else,
    its runs: in a store, its planned run keys, whichever suite executed them (runs are shared).

    Two pytest-benchmark files (two instruction-count files) are compared benchmark by benchmark under
    `max_ratio` instead.
    """
    if is_counts_file(base) or is_counts_file(cand):
        _check_benchmark_options(base, cand, suite_file, suite_name, is_counts_file, "instruction-count")
        return compare_counts(base, cand, COUNTS_MAX_RATIO if max_ratio is None else max_ratio)
    if is_benchmark_source(base) or is_benchmark_source(cand):
        _check_benchmark_options(base, cand, suite_file, suite_name, is_benchmark_source, "pytest-benchmark")
        return compare_benchmarks(base, cand, DEFAULT_MAX_RATIO if max_ratio is None else max_ratio)
    if max_ratio is not None:
        raise ComparisonError("--max-ratio applies to pytest-benchmark files",
                              hint="Results are judged by the suite's regression.rules (--suite FILE).")
    suite, select = None, None
    if suite_file is not None:
        suite, source = load_suite(suite_file)
        if suite_name is None:
            select = _planned_runs(suite, source, data_root)
    name = suite_name or (suite.suite if suite else None)
    base_frame, cand_frame = load_results(base, name, select=select), load_results(cand, name, select=select)
    return compare_frames(base_frame, cand_frame, criteria([base_frame, cand_frame], suite), base, cand)


def run_ci(suite_path: str | Path, baseline: str, options: RunOptions) -> tuple[RunOutcome, Comparison | None]:
    """Run the suite (resuming from the store), then compare its runs with the baseline under its rules.

    The baseline is read first, so a wrong path fails in a second rather than after the runs.
    The comparison is None when the run was interrupted: half a suite is no candidate.
    """
    load_plugins(options.plugins)
    suite, source = load_suite(suite_path)
    base_frame = load_results(baseline, suite.suite, select=_planned_runs(suite, source, options.data_root))
    outcome = run_suite(suite_path, options)
    if outcome.interrupted:
        return outcome, None
    label = f"{suite_path} (store {options.store})"
    with Store(options.store) as store:
        cand_frame = side_of_records(with_curve_metrics(suite, store.planned_records(outcome.planned), store.path),
                                     label)
    return outcome, compare_frames(base_frame, cand_frame, criteria([base_frame, cand_frame], suite), baseline, label)


def _check_benchmark_options(base: str, cand: str, suite_file: Path | None, suite_name: str | None,
                             is_kind: Callable[[str], bool], kind: str) -> None:
    """A benchmark file is compared only with another of its kind, and no suite selects or judges its figures."""
    for side, other in ((base, cand), (cand, base)):
        if not is_kind(other):
            raise ComparisonError(f"{side} names {kind} JSON but {other} does not",
                                  hint=f"Compare two {kind} files, or two result sets.")
    if suite_file is not None or suite_name is not None:
        raise ComparisonError("--suite and --suite-name select runs of a suite, not pytest-benchmark timings",
                              hint="Give the tolerance with --max-ratio.")


def _planned_runs(suite: Suite, source: YamlSource, data_root: Path | None) -> StoreSelection:
    return lambda store: stored_selection(suite, source, data_root, store)[0]
