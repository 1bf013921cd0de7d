"""The share-of-source table in the spec's T-MASA-1 layout (`shared/papers/masa.md`, "Report tables to mirror":
rows initialiser x student size; columns steps to the threshold, accuracy at the fixed budget, % of the source's
performance, spectral distance), from the runs.csv of masa_init and masa_ablation, with the majority floor and
the source's own accuracy beside every accuracy and the paper's cited figure beside MASA's share; then each
source (run seed) with its floor, its test accuracy and its smallest lead over a scored task type's floor.

    python -m methods.model_init.share_table reports/masa_init/runs.csv reports/masa_ablation/runs.csv \\
        reports/masa_init/share_table.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

# The only performance figure of the paper this project has: a secondary, third-party summary (no table of the
# paper was retrieved, so none can be named): an 877M MASA-initialised student keeps > 85 % of its 7B source.
CITED = "> 85 % (877M student of a 7B source; third-party summary, masa.md 'Headline numbers'; no paper table)"
ROWS = ("random", "magnitude_prune", "structured_prune", "weight_selection", "kd", "masa_random_ffn",
        "masa_ffn_only", "masa_output", "masa_spectral", "masa_genes_1", "masa", "weight_selection_long", "masa_long")
COLUMNS = (("steps_to_half", "steps to 0.5 share (dev)", "{:.0f}"),
           ("steps_to_85", "steps to 0.85 share (dev)", "{:.0f}"), ("accuracy", "accuracy", "{:.3f}"),
           ("majority_floor", "floor", "{:.3f}"), ("source_accuracy", "source", "{:.3f}"),
           ("source_share", "% of source", "{:.1%}"), ("share_above_floor", "share above floor", "{:.3f}"),
           ("spectral_distance", "spectral distance", "{:.3f}"))


def cell(values: pd.Series, fmt: str) -> str:
    """Mean ± 95 % CI half-width (Student t) over the seeds; seeds that never reached a threshold (inf) are
    counted apart; a figure no run has is a dash."""
    values = values.dropna()
    if values.empty:
        return "—"
    finite = values[np.isfinite(values)]
    never = len(values) - len(finite)
    if finite.empty:
        return f"never ({never})"
    half = stats.t.ppf(0.975, len(finite) - 1) * finite.std(ddof=1) / np.sqrt(len(finite)) if len(finite) > 1 else 0
    text = f"{fmt.format(finite.mean())} ± {fmt.format(half).lstrip('+')}"
    return text + (f" ({never} never)" if never else "")


def layout(runs: pd.DataFrame) -> str:
    """Markdown: one table per student (dataset), a row per initialiser present, the spec's columns."""
    # a run both suites hold (the same method, student and seed; masa_ablation re-makes masa_init's): once
    ok = runs[runs["status"] == "ok"].groupby(["method", "dataset", "seed"], as_index=False).first()
    lines = ["# T-MASA-1: share of the source's performance (spec layout)", "",
             "Mean ± 95 % CI over seeds, each run against its own source. `floor`: majority answer per task type; "
             "`source`: the run's source on the same test lines; `% of source`: accuracy / source accuracy (the "
             "paper's measure); `share above floor`: (accuracy - floor) / (source - floor). Paper (cited, not "
             "measured): " + CITED, ""]
    for dataset, rows in ok.groupby("dataset", sort=True):
        lines += [f"## {dataset}", "", "| initialiser | seeds | " + " | ".join(c[1] for c in COLUMNS) + " |",
                  "|---|---:|" + "---:|" * len(COLUMNS)]
        for method in [m for m in ROWS if m in set(rows["method"])]:
            mine = rows[rows["method"] == method]
            cells = [cell(mine[f"metric.{name}"].astype(float), fmt) if f"metric.{name}" in mine else "—"
                     for name, _, fmt in COLUMNS]
            lines.append(f"| `{method}` | {len(mine)} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines + _sources(ok))


def _sources(ok: pd.DataFrame) -> list[str]:
    """A row per source (run seed) and student: the figures every initialiser of it shares (they are the
    source's, on the test lines of the task types it learned on dev)."""
    figures = [("majority_floor", "floor"), ("source_accuracy", "source accuracy"),
               ("source_min_lead", "smallest lead over a task type's floor")]
    present = [(name, label) for name, label in figures if f"metric.{name}" in ok]
    if not present:
        return []
    lines = ["## The sources (test lines of the task types each learned on dev)", "",
             "| student | seed (source) | " + " | ".join(label for _, label in present) + " |",
             "|---|---:|" + "---:|" * len(present)]
    for (dataset, seed), rows in ok.groupby(["dataset", "seed"], sort=True):
        values = []
        for name, _ in present:
            seen = rows[f"metric.{name}"].astype(float).dropna().round(12).unique()
            if len(seen) > 1:
                raise ValueError(f"{dataset} seed {seed}: the runs disagree on their source's {name} "
                                 f"({', '.join(map(str, seen))}); they must share one source")
            values.append(seen[0] if len(seen) else float("nan"))
        lines.append(f"| {dataset} | {seed} | " + " | ".join(f"{v:.3f}" for v in values) + " |")
    return lines + [""]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m methods.model_init.share_table RUNS_CSV [RUNS_CSV ...] OUT_MD", file=sys.stderr)
        return 3
    runs = pd.concat([pd.read_csv(path) for path in argv[:-1]], ignore_index=True)
    Path(argv[-1]).write_text(layout(runs), encoding="utf-8")
    print(f"T-MASA-1 written to {argv[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
