"""The paper's table layouts from a report's `table.csv`: T-TM-2 (our synthetic suites: a row per solver, a
column per task figure, one table per difficulty) and T-TM-1 (the cited ThinkMorph-7B and Bagel-7B accuracies,
a row per model and a column per benchmark). The harness's own report has one table per metric.

    python -m methods.visual_reasoning.tables reports/visual_puzzles/table.csv reports/visual_puzzles/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.reporting.paper_tables import mean_with_interval
from harness.spreadsheet_cells import read_harness_csv

from methods.visual_reasoning.puzzle import DIFFICULTIES

T_TM_2 = (("jigsaw", "perm_accuracy", "jigsaw perm. acc."), ("jigsaw", "kendall_tau", "jigsaw Kendall τ"),
          ("jigsaw", "accuracy", "jigsaw exact"), ("maze", "accuracy", "maze success"),
          ("maze", "path_optimal", "maze shortest"), ("search", "accuracy", "search acc."),
          ("chart", "accuracy", "chart acc."))
T_TM_1 = ("VSP", "VisPuzzle", "ChartQA", "VStar", "BLINK-J", "MMVP", "SAT", "BLINK", "CV-Bench")


def synthetic_table(cells: pd.DataFrame) -> str:
    """T-TM-2: per difficulty, solvers as rows (in the report's order), mean ± 95% CI over seeds."""
    measured = cells[cells["source"] == "measured"]
    methods = list(dict.fromkeys(measured["method"]))
    lines = ["# T-TM-2: the synthetic suites", "",
             "Mean ± 95% CI half-width over seeds (Student t), from the report's table.csv; accuracies in %.", ""]
    for difficulty in DIFFICULTIES:
        header = [label for _, _, label in T_TM_2]
        lines += [f"## {difficulty}", "", "| solver | " + " | ".join(header) + " |", "|---|" + "---:|" * len(header)]
        for method in methods:
            row = []
            for task, metric, _ in T_TM_2:
                found = measured[(measured["method"] == method) & (measured["dataset"] == f"{task}_{difficulty}")
                                 & (measured["metric"] == metric)]
                digits = 2 if metric == "kendall_tau" else 1
                row.append(mean_with_interval(found.iloc[0], digits) if len(found) else "—")
            lines.append(f"| {method} | " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


def cited_table(cells: pd.DataFrame) -> str:
    """T-TM-1: the cited accuracies (%), a row per model."""
    cited = cells[(cells["source"] == "cited") & (cells["metric"] == "accuracy")]
    lines = ["# T-TM-1: ThinkMorph-7B and Bagel-7B as cited (not measured here)", "",
             "Accuracy (%) from the paper's main table (the official README's Benchmarks table); the benchmarks "
             "are the real ones, not our puzzles.", "", "| model | " + " | ".join(T_TM_1) + " |",
             "|---|" + "---:|" * len(T_TM_1)]
    for model, block in cited.groupby("method", sort=False):
        values = block.set_index("dataset")["mean"]
        lines.append(f"| {model} | " + " | ".join(f"{values[b]:.2f}" if b in values else "—" for b in T_TM_1) + " |")
    return "\n".join(lines + [""])


def main(argv: list[str]) -> None:
    cells = read_harness_csv(argv[0])
    Path(argv[1]).write_text(synthetic_table(cells) + "\n" + cited_table(cells), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
