"""SEM's runtime cost, the paper's "no runtime cost" claim, as ratios with 95 % intervals from a report's
`runs.csv`: per dataset and seed, a method's CPU seconds (and wall ms per environment step) over the baseline's
on the same seed and budget, then the mean ratio over seeds with its Student-t interval (harness.stats). CPU
seconds are the steadier figure on a shared machine; wall time follows the load.

Usage: python -m methods.rl_representations.overhead RUNS_CSV OUT_MD [--baseline ppo] [--method ppo_sem ...]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from harness.spreadsheet_cells import read_harness_csv
from harness.stats import summarize

FIGURES = {"measure.cpu_s": "CPU seconds per run", "metric.step_ms": "wall ms per environment step"}


def overhead_table(runs: pd.DataFrame, baseline: str, methods: list[str]) -> pd.DataFrame:
    """One row per (dataset, method, figure): n paired seeds, mean ratio to `baseline`, its 95 % interval."""
    ok = runs[runs["status"] == "ok"]
    rows = []
    for (dataset, method), group in ok[ok["method"].isin(methods)].groupby(["dataset", "method"], sort=True):
        base = ok[(ok["method"] == baseline) & (ok["dataset"] == dataset)].set_index("seed")
        mine = group.set_index("seed")
        seeds = mine.index.intersection(base.index)
        for column, title in FIGURES.items():
            if column not in ok.columns:
                continue
            stats = summarize((mine.loc[seeds, column] / base.loc[seeds, column]).to_numpy())
            rows.append({"dataset": dataset, "method": method, "figure": title, "seeds": stats.n,
                         "ratio": stats.mean, "low": stats.ci_low, "high": stats.ci_high})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame, baseline: str) -> str:
    lines = [f"Runtime of each method relative to `{baseline}` on the same seed (mean ratio over seeds, 95 % "
             "Student-t interval; 1.00 = no cost).", "", "| dataset | method | figure | seeds | ratio [95 % CI] |",
             "|---|---|---|---:|---:|"]
    lines += [f"| {r.dataset} | `{r.method}` | {r.figure} | {r.seeds} | {r.ratio:.2f} [{r.low:.2f}, {r.high:.2f}] |"
              for r in table.itertuples()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--baseline", default="ppo")
    parser.add_argument("--method", action="append", dest="methods")
    args = parser.parse_args(argv)
    runs = read_harness_csv(args.runs)
    methods = args.methods or sorted(set(runs["method"]) - {args.baseline})
    args.out.write_text(markdown(overhead_table(runs, args.baseline, methods), args.baseline), encoding="utf-8")


if __name__ == "__main__":
    main()
