"""Compare two sets of results cell by cell, and gate CI on the outcome (`harness compare`, `harness ci`).

`sources` reads a side, `criteria` decides what is compared and with which tolerance,
`significance` tests a change over seeds, `classify` gives each cell its outcome class,
`verdict` the exit code, and `render` the terminal, Markdown and JSON outputs. `benchmark_files`,
`benchmark_hardware` and `benchmark_gate` make two pytest-benchmark files such sides.
"""
from harness.comparison.benchmark_gate import compare_benchmarks
from harness.comparison.classify import CellComparison, Comparison, Status, compare_frames
from harness.comparison.errors import ComparisonError
from harness.comparison.gate import compare_sources, run_ci
from harness.comparison.render import render, summary_line
from harness.comparison.sources import load_results
from harness.comparison.verdict import Verdict, verdict

__all__ = [
    "CellComparison", "Comparison", "ComparisonError", "Status", "Verdict", "compare_benchmarks", "compare_frames",
    "compare_sources", "load_results", "render", "run_ci", "summary_line", "verdict",
]
