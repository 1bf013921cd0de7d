"""The exit code of a comparison, so CI can gate on it: 0 clean, 1 regression, 2 failed runs."""
from __future__ import annotations

from dataclasses import dataclass

from harness.comparison.classify import Comparison, Status

REGRESSION_EXIT = 1
FAILED_RUNS_EXIT = 2  # the same code `harness run` returns when runs fail


@dataclass(frozen=True)
class Verdict:
    exit_code: int
    reason: str


def verdict(comparison: Comparison, strict: bool = False) -> Verdict:
    """Failures outrank regressions, then a missing benchmark; `strict` also fails on cells that could not be
    judged."""
    counts = comparison.counts()
    if counts[Status.NEWLY_FAILING] or comparison.failed_cand_runs:
        return Verdict(FAILED_RUNS_EXIT, f"{comparison.failed_cand_runs} candidate run(s) failed, "
                                         f"{counts[Status.NEWLY_FAILING]} cell(s) newly failing")
    if counts[Status.REGRESSED]:
        return Verdict(REGRESSION_EXIT, f"{counts[Status.REGRESSED]} cell(s) regressed")
    if comparison.missing_fails and counts[Status.MISSING]:
        return Verdict(REGRESSION_EXIT, f"{counts[Status.MISSING]} benchmark(s) of the base missing from the candidate")
    unjudged = counts[Status.INCOMPARABLE] + counts[Status.MISSING]
    if strict and unjudged:
        return Verdict(REGRESSION_EXIT, f"strict: {counts[Status.INCOMPARABLE]} incomparable, "
                                        f"{counts[Status.MISSING]} missing cell(s)")
    return Verdict(0, "clean")
