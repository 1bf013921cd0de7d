"""The results table printed after `run` and `score`: mean ± std over seeds, per metric."""
from __future__ import annotations

import sys
from pathlib import Path

from harness.planner import RunSpec
from harness.results import format_cell, records_frame, summary
from harness.store import Store
from harness.suite import Suite


def summary_markdown(suite: Suite, planned: list[RunSpec], store: Store) -> str:
    """One Markdown table per metric: methods x datasets, cells `mean ± std` over seeds (n)."""
    frame = records_frame(store.records(r.run_key for r in planned))
    if frame.empty:
        return "no stored runs for this suite yet\n"
    table = summary(frame, suite.metrics)
    methods = list(dict.fromkeys(r.method for r in planned))
    datasets = list(suite.datasets)
    seeds = ", ".join(map(str, suite.defaults.seeds))
    lines = [f"Suite `{suite.suite}`: mean ± std over seeds ({seeds}); failed runs excluded.", ""]
    for metric in suite.metrics:
        cells = {(row.method, row.dataset): format_cell(row.mean, row.std, row.n)
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
