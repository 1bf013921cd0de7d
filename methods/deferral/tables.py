"""The paper's table layouts from a report's `table.csv` (the measured cells): T-L2D-1, one table per dataset
with a row per method and a column per figure, and T-L2D-3, the allocation shares and the k(x) histogram.
The harness's own report has one table per metric; these put a dataset's figures side by side.

    python -m methods.deferral.tables reports/defer_topk/table.csv reports/defer_topk/tables.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

T_L2D_1 = ("accuracy", "mse", "consult_cost", "total_cost", "regret", "cost_auc")
T_L2D_3 = ("share_model", "share_expert1", "share_expert2", "share_expert3", "share_expert4", "share_expert5",
           "share_expert6", "mean_k", "k_share_1", "k_share_2", "k_share_3", "k_share_4", "k_share_5")


def _cell(row: pd.Series) -> str:
    if not row["n"] or pd.isna(row["mean"]):
        return "—"
    half = (row["ci_high"] - row["ci_low"]) / 2
    digits = 1 if abs(row["mean"]) >= 10 else 3
    return f"{row['mean']:.{digits}f} ± {half:.{digits}f}" if pd.notna(half) else f"{row['mean']:.{digits}f}"


def layout(cells: pd.DataFrame, metrics: tuple[str, ...], title: str) -> str:
    """Markdown: per dataset, methods as rows (in the report's order) and `metrics` as columns, mean ± 95% CI;
    a metric that is NaN for every method of a dataset (e.g. accuracy on regression) is left out there."""
    measured = cells[(cells["source"] == "measured") & cells["metric"].isin(metrics)]
    lines = [f"# {title}", "", "Mean ± 95% CI half-width over seeds (Student t), from the report's table.csv.", ""]
    for dataset, block in measured.groupby("dataset", sort=False):
        table = block.assign(cell=block.apply(_cell, axis=1)).pivot(index="method", columns="metric", values="cell")
        table = table.reindex(index=list(dict.fromkeys(block["method"])),
                              columns=[m for m in metrics if m in table.columns])
        table = table.loc[:, (table != "—").any(axis=0)]
        lines += [f"## {dataset}", "", "| method | " + " | ".join(table.columns) + " |",
                  "|---|" + "---:|" * len(table.columns)]
        lines += [f"| {method} | " + " | ".join(row) + " |" for method, row in table.iterrows()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    cells = pd.read_csv(argv[0])
    first = layout(cells, T_L2D_1, "T-L2D-1: accuracy (MSE), consultation cost, total cost, regret, curve area")
    third = layout(cells, T_L2D_3, "T-L2D-3: share of queries per entity (%), mean k and the k(x) histogram (%)")
    Path(argv[1]).write_text(first + "\n" + third, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
