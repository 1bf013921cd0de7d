"""STAT's Table 3 layout from the stored math_stat runs: columns ID / hard / OOD / Avg, then the Avg gain
against Base and against SFT (the paper's "+7.5" depends on which row it is measured from: print both).

Usage: `python -m methods.math_reasoning.stat_report reports/math_stat/runs.csv reports/math_stat/table3.md`
(the runs.csv `harness report` writes). Cells are mean ± 95 % CI over seeds (t-interval); gains are paired by
seed; every number is a stored run's, whose ids are listed under the table.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

COLUMNS = (("ID", "metric.accuracy_id"), ("hard (D)", "metric.accuracy_hard"), ("OOD", "metric.accuracy_ood"),
           ("Avg", "metric.accuracy_avg"))
BASE, SFT = "base", "math_train"


def mean_ci(values: np.ndarray) -> str:
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return f"{values.mean():.1f}" if len(values) else "—"
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{values.mean():.1f} ± {half:.1f}"


def table3(runs_csv: str | Path) -> str:
    runs = pd.read_csv(runs_csv)
    runs = runs[runs["status"] == "ok"]
    missing = [c for _, c in COLUMNS if c not in runs.columns]
    if missing:
        raise ValueError(f"{runs_csv} lacks column(s) {missing}: is it the math_stat suite's runs.csv?")
    avg = runs.pivot_table(index="seed", columns="method", values="metric.accuracy_avg")
    lines = ["| method | " + " | ".join(n for n, _ in COLUMNS) + " | Δ Avg vs Base | Δ Avg vs SFT | seeds |",
             "|---|" + "---:|" * (len(COLUMNS) + 3)]
    for method, rows in runs.groupby("method", sort=False):
        cells = [mean_ci(rows[c].to_numpy(float)) for _, c in COLUMNS]
        gains = [mean_ci((avg[method] - avg[ref]).dropna().to_numpy(float)) if ref in avg and ref != method else "—"
                 for ref in (BASE, SFT)]
        lines.append(f"| {method} | " + " | ".join(cells + gains) + f" | {len(rows)} |")
    ids = ", ".join(runs["run_id"].astype(str))
    return "\n".join(lines) + f"\n\nMeasured runs (mean ± 95 % CI over seeds): {ids}\n"


if __name__ == "__main__":
    Path(sys.argv[2]).write_text(table3(sys.argv[1]))
