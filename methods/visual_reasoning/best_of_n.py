"""The best-of-N plot (ThinkMorph's test-time scaling, in miniature): per task and difficulty, pass@k (solid:
one of k answers is right, an oracle verifier) and best-of-k (dashed: the solver's own highest-scored answer)
against k, a line per solver, from a report's `table.csv`.

    python -m methods.visual_reasoning.best_of_n reports/visual_puzzles/table.csv reports/visual_puzzles/best_of_n.png
"""
from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from harness.spreadsheet_cells import read_harness_csv

from methods.visual_reasoning.metrics import SCALING  # noqa: E402
from methods.visual_reasoning.puzzle import DIFFICULTIES, TASKS  # noqa: E402


def _curve(cells: pd.DataFrame, method: str, dataset: str, prefix: str) -> tuple[list[int], list[float]]:
    """k and the mean of `prefix`k over seeds (best-of-1 is the accuracy)."""
    ks, means = [], []
    for k in SCALING:
        metric = "accuracy" if (prefix == "best_of_" and k == 1) else f"{prefix}{k}"
        found = cells[(cells["method"] == method) & (cells["dataset"] == dataset) & (cells["metric"] == metric)]
        if len(found) and pd.notna(found.iloc[0]["mean"]):
            ks.append(k)
            means.append(float(found.iloc[0]["mean"]))
    return ks, means


def plot(cells: pd.DataFrame, out: Path) -> None:
    measured = cells[cells["source"] == "measured"]
    methods = list(dict.fromkeys(measured["method"]))
    figure, axes = plt.subplots(len(DIFFICULTIES), len(TASKS), figsize=(10, 7), sharex=True, sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for row, difficulty in enumerate(DIFFICULTIES):
        for col, task in enumerate(TASKS):
            ax = axes[row, col]
            for method, colour in zip(methods, colours, strict=False):
                for prefix, style in (("pass_at_", "-"), ("best_of_", "--")):
                    ks, means = _curve(measured, method, f"{task}_{difficulty}", prefix)
                    label = f"{method} {'pass@k' if prefix == 'pass_at_' else 'best-of-k'}"
                    ax.plot(ks, means, style, color=colour, marker="o", markersize=3, label=label)
            ax.set_xscale("log", base=2)
            ax.set_xticks(list(SCALING), [str(k) for k in SCALING])
            ax.set_title(f"{task}, {difficulty}", fontsize=9)
            ax.set_ylim(-3, 103)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("answers per puzzle k")
    for ax in axes[:, 0]:
        ax.set_ylabel("% of puzzles")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(methods) * 2, fontsize=8, frameon=False)
    figure.suptitle("Best-of-N: pass@k (solid, oracle verifier) and best-of-k (dashed, own confidence)", fontsize=10)
    figure.subplots_adjust(bottom=0.12, top=0.92, hspace=0.35, wspace=0.08)
    figure.savefig(out, dpi=72)
    plt.close(figure)


def main(argv: list[str]) -> None:
    plot(read_harness_csv(argv[0]), Path(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
