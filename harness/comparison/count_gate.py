"""`harness compare` of two instruction-count files (`harness bench`): each benchmark's estimated cycles per call
under one `max_ratio` rule (default 1.02: 2 %).

Counts of one build repeat to within a few tenths of a percent (0.25 % and 0.3 % measured on the engine's
benchmarks, one count made under load), so one count per side is judged on the ratio alone. They are judged
only where both files come from one build (Python, the packages the engine runs, Valgrind): another build
executes other code, and every benchmark is then incomparable, named so. A benchmark of the base missing from
the candidate fails the gate.
"""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from harness.comparison.benchmark_gate import benchmark_cell
from harness.comparison.classify import CellComparison, Comparison, Status, compare_frames
from harness.comparison.criteria import Criterion
from harness.fingerprint import digest
from harness.instruction_counts import CountsFile, load_counts
from harness.suite import RegressionRule

DEFAULT_MAX_RATIO = 1.02
CYCLES = "estimated_cycles"


def compare_counts(base: str, cand: str, max_ratio: float = DEFAULT_MAX_RATIO) -> Comparison:
    """Every benchmark of either file; more (fewer) estimated cycles than `max_ratio` allows is a regression
    (improvement)."""
    base_file, cand_file = load_counts(base), load_counts(cand)
    criterion = Criterion(CYCLES, f"measure.{CYCLES}", higher_is_better=False, hardware=True,
                          rule=RegressionRule(metric=CYCLES, max_ratio=max_ratio))
    comparison = compare_frames(_side(base_file), _side(cand_file), [criterion], base, cand)
    builds = build_difference(base_file.build, cand_file.build)
    instructions = [{benchmark_cell(b.fullname): b.instructions for b in file.benchmarks}
                    for file in (base_file, cand_file)]
    cells = [_explained(cell, builds, *instructions) for cell in comparison.cells]
    return replace(comparison, cells=cells, samples="counts", missing_fails=True)


def build_difference(base: dict[str, str], cand: dict[str, str]) -> str:
    """What differs between two files' builds, base first: `numpy '2.3.1' vs '2.3.4'`."""
    return "; ".join(f"{name} {base.get(name)!r} vs {cand.get(name)!r}"
                     for name in dict.fromkeys([*base, *cand]) if base.get(name) != cand.get(name))


def _side(file: CountsFile) -> pd.DataFrame:
    build = digest(file.build, length=12)
    rows = []
    for counts in file.benchmarks:
        method, dataset = benchmark_cell(counts.fullname)
        rows.append({"method": method, "dataset": dataset, "seed": 0, "status": "ok", "hardware_fingerprint": build,
                     f"measure.{CYCLES}": float(counts.estimated_cycles)})
    return pd.DataFrame(rows)


def _explained(cell: CellComparison, builds: str, base: dict[tuple[str, str], int],
               cand: dict[tuple[str, str], int]) -> CellComparison:
    if cell.status is Status.INCOMPARABLE and builds:
        return replace(cell, reason=f"not gated: another build: {builds}")
    key = (cell.method, cell.dataset)
    if key in base and key in cand and base[key]:
        return replace(cell, reason=f"instructions x{cand[key] / base[key]:.4f}", test="none: one count a side")
    return cell
