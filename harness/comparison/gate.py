"""What `harness compare` and `harness ci` do: load two sides and classify them, or run then compare."""
from __future__ import annotations

from pathlib import Path

from harness.comparison.classify import Comparison, compare_frames
from harness.comparison.criteria import criteria
from harness.comparison.sources import load_results, side_of_records
from harness.runner import RunOptions, RunOutcome, load_plugins, run_suite
from harness.store import Store
from harness.suite import Suite, load_suite


def compare_sources(base: str, cand: str, suite: Suite | None = None, suite_name: str | None = None) -> Comparison:
    """Compare two sides; a suite supplies rules and directions and, unless `suite_name` says else, its runs."""
    name = suite_name or (suite.suite if suite else None)
    base_frame, cand_frame = load_results(base, name), load_results(cand, name)
    return compare_frames(base_frame, cand_frame, criteria([base_frame, cand_frame], suite), base, cand)


def run_ci(suite_path: str | Path, baseline: str, options: RunOptions) -> tuple[RunOutcome, Comparison | None]:
    """Run the suite (resuming from the store), then compare its runs with the baseline under its rules.

    The baseline is read first, so a wrong path fails in a second rather than after the runs.
    The comparison is None when the run was interrupted: half a suite is no candidate.
    """
    load_plugins(options.plugins)
    suite, _ = load_suite(suite_path)
    base_frame = load_results(baseline, suite.suite)
    outcome = run_suite(suite_path, options)
    if outcome.interrupted:
        return outcome, None
    label = f"{suite_path} (store {options.store})"
    with Store(options.store) as store:
        cand_frame = side_of_records(store.planned_records(outcome.planned), label)
    return outcome, compare_frames(base_frame, cand_frame, criteria([base_frame, cand_frame], suite), baseline, label)
