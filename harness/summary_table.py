"""The results table printed after `run` and `score`: mean ± std over seeds, per metric."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.planner import RunSpec
from harness.results import records_frame
from harness.stats import summarize
from harness.store import Store
from harness.suite import Suite


def summary(frame: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Mean, std and n over seeds of each (method, dataset, metric), successful runs only.

    Uses `harness.stats.summarize`, as reports do: non-finite values are counted apart, never averaged.
    """
    ok = frame[frame["status"] == "ok"]
    rows = []
    for (method, dataset), cell in ok.groupby(["method", "dataset"], sort=False):
        for metric in metrics:
            stats = summarize(cell.get(f"metric.{metric}", pd.Series(dtype=float)).astype(float))
            rows.append({"method": method, "dataset": dataset, "metric": metric, "mean": stats.mean,
                         "std": stats.std, "n": stats.n, "n_nonfinite": stats.n_nonfinite})
    return pd.DataFrame(rows, columns=["method", "dataset", "metric", "mean", "std", "n", "n_nonfinite"])


def format_cell(mean: float, std: float, n: int, n_nonfinite: int = 0) -> str:
    nan = f" ({n_nonfinite} NaN)" if n_nonfinite else ""
    if n == 0:
        return "NaN" if n_nonfinite else "—"
    if n == 1 or pd.isna(std):
        return f"{mean:.2f} (n=1){nan}"
    return f"{mean:.2f} ± {std:.2f}{nan}"


def summary_markdown(suite: Suite, planned: list[RunSpec], store: Store) -> str:
    """One Markdown table per metric: methods x datasets, cells `mean ± std` over seeds (n)."""
    frame = records_frame(store.planned_records(planned))
    if frame.empty:
        return "no stored runs for this suite yet\n"
    table = summary(frame, suite.metrics)
    methods = list(dict.fromkeys(r.method for r in planned))
    datasets = list(suite.datasets)
    seeds = ", ".join(map(str, suite.defaults.seeds))
    lines = [f"Suite `{suite.suite}`: mean ± std over seeds ({seeds}); failed runs excluded.", ""]
    for metric in suite.metrics:
        cells = {(row.method, row.dataset): format_cell(row.mean, row.std, row.n, row.n_nonfinite)
                 for row in table[table.metric == metric].itertuples()}
        lines += [f"**{metric}**", "", "| method | " + " | ".join(datasets) + " |",
                  "|---|" + "---:|" * len(datasets)]
        lines += [f"| {m} | " + " | ".join(cells.get((m, d), "—") for d in datasets) + " |" for m in methods]
        lines.append("")
    failed = frame[frame.status != "ok"]
    for row in failed.itertuples():
        last = (row.error or "").strip().splitlines()[-1:] or [""]
        lines.append(f"- {row.status}: {row.method} on {row.dataset} seed {row.seed} (run {row.run_id}): {last[0]}")
    return "\n".join(lines) + "\n"


def print_summary(suite: Suite, planned: list[RunSpec], store_path: Path) -> Path:
    """Print the table and write it into the suite's run folder; return the file's path."""
    with Store(store_path) as store:
        text = summary_markdown(suite, planned, store)
        out = store.artifacts_dir / suite.suite / "results.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    print(f"results table: {out}")
    return out
