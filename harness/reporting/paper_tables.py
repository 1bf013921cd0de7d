"""What the families' paper-style layouts (`python -m methods.<family>.tables`) share: a measured cell of a
report's `table.csv` written as "mean ± 95% CI half-width", and the common layout of one table per dataset with a
row per method. The harness's own report has one table per metric; a paper puts a dataset's figures side by side.
"""
from __future__ import annotations

import pandas as pd


def mean_with_interval(row: pd.Series, digits: int | None = None) -> str:
    """A `table.csv` row as `mean ± half-width` (the mean alone where one seed gives no interval, `—` where none
    measured it); `digits` defaults to 1 for means of 10 or more and 3 below."""
    if row.get("n", 1) == 0 or pd.isna(row["mean"]):
        return "—"
    if digits is None:
        digits = 1 if abs(row["mean"]) >= 10 else 3
    half = (row["ci_high"] - row["ci_low"]) / 2
    return f"{row['mean']:.{digits}f} ± {half:.{digits}f}" if pd.notna(half) else f"{row['mean']:.{digits}f}"


def tables_per_dataset(cells: pd.DataFrame, metrics: tuple[str, ...], title: str) -> str:
    """Markdown: per dataset, methods as rows (in the report's order) and `metrics` as columns, mean ± 95% CI;
    a metric that is NaN for every method of a dataset (e.g. accuracy on regression) is left out there."""
    measured = cells[(cells["source"] == "measured") & cells["metric"].isin(metrics)]
    lines = [f"# {title}", "", "Mean ± 95% CI half-width over seeds (Student t), from the report's table.csv.", ""]
    for dataset, block in measured.groupby("dataset", sort=False):
        table = block.assign(cell=block.apply(mean_with_interval, axis=1))
        table = table.pivot(index="method", columns="metric", values="cell")
        table = table.reindex(index=list(dict.fromkeys(block["method"])),
                              columns=[m for m in metrics if m in table.columns])
        table = table.loc[:, (table != "—").any(axis=0)]
        lines += [f"## {dataset}", "", "| method | " + " | ".join(table.columns) + " |",
                  "|---|" + "---:|" * len(table.columns)]
        lines += [f"| {method} | " + " | ".join(row) + " |" for method, row in table.iterrows()]
        lines.append("")
    return "\n".join(lines)
