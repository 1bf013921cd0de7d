"""The results table printed after `run` and `score`: each cell as the report shows it."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from harness.planner import RunSpec
from harness.reporting.layout import format_stats, spread_note
from harness.reporting.markdown_table import markdown_table
from harness.results import records_frame
from harness.run_folders import results_table
from harness.stats import summarize
from harness.store import Store
from harness.suite import Suite


def summary_markdown(suite: Suite, planned: list[RunSpec], store: Store) -> str:
    """One Markdown table per metric: methods x datasets, cells in the suite's `report.cell` format,
    drawn as `harness report` draws its tables (names unescaped: it is read in a terminal)."""
    frame = records_frame(store.planned_records(planned))
    if frame.empty:
        return "no stored runs for this suite yet\n"
    methods = list(dict.fromkeys(r.method for r in planned))
    datasets = list(suite.datasets)
    lines = [f"Suite `{suite.suite}`: {spread_note(suite.report.cell, 't', suite.defaults.seeds)}; "
             "failed runs are counted, never averaged.", ""]
    groups = {key: group for key, group in frame.groupby(["method", "dataset"], sort=False)}
    for metric in suite.metrics:
        template = suite.report.template(metric)
        rows = [(method, [_cell(groups.get((method, dataset)), metric, template) for dataset in datasets])
                for method in methods]
        lines += [f"**{metric}**", "", *markdown_table("method", datasets, rows), ""]
    failed = frame[frame.status != "ok"]
    for row in failed.itertuples():
        last = (row.error or "").strip().splitlines()[-1:] or [""]
        lines.append(f"- {row.status}: {row.method} on {row.dataset} seed {row.seed} (run {row.run_id}): {last[0]}")
    return "\n".join(lines) + "\n"


def _cell(group: pd.DataFrame | None, metric: str, template: str) -> str:
    if group is None:
        return "—"
    ok = group[group["status"] == "ok"]
    values = ok.get(f"metric.{metric}", pd.Series(index=ok.index, dtype=float)).astype(float)
    return format_stats(summarize(values), template, failed_runs=len(group) - len(ok))


def print_summary(suite: Suite, planned: list[RunSpec], store_path: Path) -> Path:
    """Print the table and write it into the suite's run folder; return the file's path."""
    with Store(store_path, read_only=True) as store:
        text = summary_markdown(suite, planned, store)
        out = results_table(store.artifacts_dir, suite.suite)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    print(f"results table: {out}")
    return out
