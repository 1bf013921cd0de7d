"""T-DePO-1's layout from a report's `table.csv`: a row per method, per property (dataset) the columns SR, Sim
and SR x Sim in the released evaluate.py's definition and SR under the similarity constraint, plus each policy's
relative SR x Sim gain of DePO over it with a paired bootstrap interval, checked against the abstract's "up to
13 %" (`gap`).
The harness's own report has one table per metric.

    python -m methods.molecule_opt.tables reports/molopt_tomg/table.csv reports/molopt_tomg/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.reporting.paper_tables import mean_with_interval
from harness.spreadsheet_cells import read_harness_csv
from methods.molecule_opt.gap import gap_section

COLUMNS = (("sr_released", "SR (%)", 1), ("similarity", "Sim", 3), ("sr_x_sim_released", "SR×Sim", 1),
           ("sr_constrained", "SR≥δ (%)", 1))
HEADLINE = "sr_x_sim_released"  # the paper's SR x Sim: the released evaluate.py's success times similarity


def layout(cells: pd.DataFrame, title: str, runs: pd.DataFrame | None = None) -> str:
    measured = cells[cells["source"] == "measured"]
    methods = list(dict.fromkeys(measured["method"]))
    datasets = list(dict.fromkeys(measured["dataset"]))
    lines = [f"# {title}", "", "Mean ± 95% CI half-width over seeds (Student t), from the report's table.csv.", ""]
    header = [f"{d} {label}" for d in datasets for _, label, _ in COLUMNS]
    lines += ["| method | " + " | ".join(header) + " |", "|---|" + "---:|" * len(header)]
    mean = measured.set_index(["method", "dataset", "metric"])
    for method in methods:
        row = [mean_with_interval(mean.loc[(method, d, metric)], digits) if (method, d, metric) in mean.index else "—"
               for d in datasets for metric, _, digits in COLUMNS]
        lines.append(f"| {method} | " + " | ".join(row) + " |")
    if runs is not None and "depo" in methods:
        lines += ["", *gap_section(runs, HEADLINE, tuple(m for m in ("sft", "grpo", "sft_grpo") if m in methods))]
    return "\n".join(lines + [""])


def main(argv: list[str]) -> None:
    """table.csv, the output file and a title; the report's runs.csv beside table.csv gives the gap check."""
    cells, runs_file = read_harness_csv(argv[0]), Path(argv[0]).with_name("runs.csv")
    runs = read_harness_csv(runs_file) if runs_file.is_file() else None
    Path(argv[1]).write_text(layout(cells, argv[2] if len(argv) > 2 else "T-DePO-1 layout", runs), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
