"""STAT's Table 3 layout from the stored math_stat runs: columns ID / hard / OOD / Avg, then the Avg gain
against Base and against SFT (the paper's "+7.5" depends on which row it is measured from: print both).

A second table mirrors the paper's Fig. 4 (per-skill gains): ID accuracy on the test problems that contain
each skill, per method, from the runs' predictions tables in the store.

Usage: `python -m methods.math_reasoning.stat_report reports/math_stat/runs.csv reports/math_stat/table3.md
[--store .harness/results.sqlite]` (the runs.csv `harness report` writes). Cells are mean ± 95 % CI over
seeds (t-interval); gains are paired by seed; every number is a stored run's, whose ids are listed.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from harness.spreadsheet_cells import read_harness_csv
from harness.store import DEFAULT_STORE, Store
from methods.math_reasoning import generator
from methods.math_reasoning.training_task import TEST_SEED

COLUMNS = (("ID", "metric.accuracy_id"), ("hard (D)", "metric.accuracy_hard"), ("OOD", "metric.accuracy_ood"),
           ("Avg", "metric.accuracy_avg"))
BASE, SFT = "base", "math_train"
ROWS = (BASE, SFT, "augment", "hard", "embed_sel", "stat_sel", "stat_syn")  # the paper's row order; others follow


def in_paper_order(methods) -> list[str]:
    present = list(dict.fromkeys(methods))
    return [m for m in ROWS if m in present] + [m for m in present if m not in ROWS]


def mean_ci(values: np.ndarray) -> str:
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return f"{values.mean():.1f}" if len(values) else "—"
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{values.mean():.1f} ± {half:.1f}"


def table3(runs_csv: str | Path) -> str:
    runs = read_harness_csv(runs_csv)
    runs = runs[runs["status"] == "ok"]
    missing = [c for _, c in COLUMNS if c not in runs.columns]
    if missing:
        raise ValueError(f"{runs_csv} lacks column(s) {missing}: is it the math_stat suite's runs.csv?")
    avg = runs.pivot_table(index="seed", columns="method", values="metric.accuracy_avg")
    lines = ["| method | " + " | ".join(n for n, _ in COLUMNS) + " | Δ Avg vs Base | Δ Avg vs SFT | seeds |",
             "|---|" + "---:|" * (len(COLUMNS) + 3)]
    for method in in_paper_order(runs["method"]):
        rows = runs[runs["method"] == method]
        cells = [mean_ci(rows[c].to_numpy(float)) for _, c in COLUMNS]
        gains = [mean_ci((avg[method] - avg[ref]).dropna().to_numpy(float)) if ref in avg and ref != method else "—"
                 for ref in (BASE, SFT)]
        lines.append(f"| {method} | " + " | ".join(cells + gains) + f" | {len(rows)} |")
    ids = ", ".join(runs["run_id"].astype(str))
    return "\n".join(lines) + f"\n\nMeasured runs (mean ± 95 % CI over seeds): {ids}\n"


def skill_table(runs_csv: str | Path, store: str | Path = DEFAULT_STORE) -> str:
    """ID accuracy (%) on the test problems containing each skill, per method (mean over seeds)."""
    runs = read_harness_csv(runs_csv)
    runs = runs[runs["status"] == "ok"]
    rows = []
    with Store(store, read_only=True) as stored:
        paths = {row.run_id: stored.predictions_path(row.run_id) for row in runs.itertuples()}
    for row in runs.itertuples():
        table = pd.read_parquet(paths[row.run_id])
        rows.append((row.method, row.seed, table[table["subset"] != "ood"]))  # the ID test set, hard items included
    size = len(rows[0][2])
    skills_of = {p.id: p.skills for p in generator.problem_set(size, TEST_SEED, prefix="test")}
    lines = ["| method | " + " | ".join(generator.SKILLS) + " |", "|---|" + "---:|" * len(generator.SKILLS)]
    for method in in_paper_order(m for m, _, _ in rows):
        cells = []
        for skill in generator.SKILLS:
            per_seed = [t[[skill in skills_of[i] for i in t["id"]]]["correct"].mean() * 100 for m, _, t in rows
                        if m == method]
            cells.append(mean_ci(np.array(per_seed, float)))
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs_csv")
    parser.add_argument("out")
    parser.add_argument("--store", default=str(DEFAULT_STORE))
    args = parser.parse_args()
    Path(args.out).write_text(table3(args.runs_csv) + "\n## Accuracy per skill (ID test problems containing "
                              "the skill; the paper's Fig. 4)\n\n" + skill_table(args.runs_csv, args.store))


if __name__ == "__main__":
    main()
