"""`harness compare` of two pytest-benchmark files: each benchmark's time per call under one `max_ratio` rule.

Each benchmark becomes a cell (method: the test, dataset: its module) that `compare_frames` judges as any
hardware figure: its median time beyond the ratio in the slow (fast) direction is a regression
(improvement). Where both files hold each round's time (`--benchmark-save-data`), the rounds are the
samples and the change must also be significant, by Welch's t-test on log times (round i of one file is
no pair of round i of the other, and timing noise is a factor); otherwise the medians pytest-benchmark
reports are judged on the ratio alone, and the cell says so. Times are judged only when both files'
machines have one fingerprint (`benchmark_hardware`); otherwise every benchmark is incomparable, which
does not fail the gate. A benchmark of the base missing from the candidate fails it.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from harness.comparison.benchmark_files import BenchmarkFile, load_benchmark_file
from harness.comparison.benchmark_hardware import benchmark_fingerprint, hardware_difference
from harness.comparison.classify import CellComparison, Comparison, Status, compare_frames
from harness.comparison.criteria import Criterion
from harness.suite import RegressionRule

# Timings of one machine vary by tens of percent between quiet runs; 1.5 flags a real slowdown, not that.
# A CI box shared with other jobs needs more (`.ci/run` passes 2.0).
DEFAULT_MAX_RATIO = 1.5
TIME = "time_s"
_JUDGED = (Status.REGRESSED, Status.IMPROVED, Status.INSIGNIFICANT, Status.UNCHANGED)


def compare_benchmarks(base: str, cand: str, max_ratio: float = DEFAULT_MAX_RATIO,
                       repo: Path | None = None) -> Comparison:
    """Every benchmark of either file, slower (faster) by more than `max_ratio` being a regression (improvement)."""
    base_file, cand_file = load_benchmark_file(base, repo), load_benchmark_file(cand, repo)
    by_rounds = _with_rounds(base_file) & _with_rounds(cand_file)
    rule = RegressionRule(metric=TIME, max_ratio=max_ratio)
    criterion = Criterion(TIME, f"measure.{TIME}", higher_is_better=False, hardware=True, rule=rule,
                          samples="rounds")
    comparison = compare_frames(_side(base_file, by_rounds), _side(cand_file, by_rounds), [criterion],
                                base_file.source, cand_file.source)
    other_hardware = hardware_difference(base_file.machine_info, cand_file.machine_info)
    notes = _notes(base_file, cand_file, by_rounds)
    cells = [_explained(cell, other_hardware, notes) for cell in comparison.cells]
    return replace(comparison, cells=cells, samples="rounds", missing_fails=True)


def _with_rounds(file: BenchmarkFile) -> set[str]:
    """The benchmarks whose file holds two or more round times, enough for a test."""
    return {timing.fullname for timing in file.timings if len(timing.rounds) >= 2}


def benchmark_cell(fullname: str) -> tuple[str, str]:
    """(method, dataset) of a benchmark: `benchmarks/test_x.py::test_y[p]` -> (`test_y[p]`, `benchmarks/test_x.py`)."""
    module, separator, test = fullname.partition("::")
    return (test, module) if separator else (fullname, "-")


def _side(file: BenchmarkFile, by_rounds: set[str]) -> pd.DataFrame:
    """One row per round time (per benchmark judged by rounds) or per median, as `compare_frames` reads runs."""
    fingerprint = benchmark_fingerprint(file.machine_info)
    rows = []
    for timing in file.timings:
        method, dataset = benchmark_cell(timing.fullname)
        values = timing.rounds if timing.fullname in by_rounds else (timing.median,)
        rows += [{"method": method, "dataset": dataset, "seed": index, "status": "ok",
                  "hardware_fingerprint": fingerprint, f"measure.{TIME}": value} for index, value in enumerate(values)]
    return pd.DataFrame(rows)


def _notes(base: BenchmarkFile, cand: BenchmarkFile, by_rounds: set[str]) -> dict[tuple[str, str], str]:
    """What was judged for each benchmark of both files (the table's base and candidate columns are means):
    the ratio of the medians, and which file lacks the round times when there was no test."""
    cand_timings = {timing.fullname: timing for timing in cand.timings}
    notes = {}
    for timing in base.timings:
        other = cand_timings.get(timing.fullname)
        if other is None or timing.median <= 0:
            continue
        note = f"median x{other.median / timing.median:.2f}"
        if timing.fullname not in by_rounds:
            lacking = " and ".join(side for side, t in (("base", timing), ("candidate", other)) if len(t.rounds) < 2)
            note += f"; no round times in {lacking} (--benchmark-save-data): judged on max_ratio alone"
        notes[benchmark_cell(timing.fullname)] = note
    return notes


def _explained(cell: CellComparison, other_hardware: str, notes: dict[tuple[str, str], str]) -> CellComparison:
    if cell.status is Status.INCOMPARABLE and other_hardware:
        return replace(cell, reason=f"not gated: hardware differs: {other_hardware}")
    note = notes.get((cell.method, cell.dataset))
    if cell.status in _JUDGED and note:
        return replace(cell, reason=note)
    return cell
