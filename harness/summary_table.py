"""The results table printed after `run` and `score`: each cell as the report shows it.

Built from the stored records directly, without pandas: re-running a stored suite is mostly this table.
"""
from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from harness.record_json import RecordJson
from harness.reporting.layout import format_stats, spread_note
from harness.reporting.markdown_table import markdown_table
from harness.run_folders import results_table
from harness.run_spec import RunSpec
from harness.stats import summarize
from harness.store import Store
from harness.suite import Suite


def summary_markdown(suite: Suite, planned: list[RunSpec], store: Store) -> str:
    """One Markdown table per metric: methods x datasets, cells in the suite's `report.cell` format,
    drawn as `harness report` draws its tables (names unescaped: it is read in a terminal)."""
    records = store.planned_records(planned)
    if not records:
        return "no stored runs for this suite yet\n"
    methods = list(dict.fromkeys(r.method for r in planned))
    datasets = list(suite.datasets)
    lines = [f"Suite `{suite.suite}`: {spread_note(suite.report.cell, 't', suite.defaults.seeds)}; "
             "failed runs are counted, never averaged.", ""]
    cells: dict[tuple[str, str], list[RecordJson]] = defaultdict(list)
    for record in records:
        cells[record["method"], record["dataset"]].append(record)
    for metric in suite.metrics:
        template = suite.report.template(metric)
        rows = [(method, [_cell(cells.get((method, dataset)), metric, template) for dataset in datasets])
                for method in methods]
        lines += [f"**{metric}**", "", *markdown_table("method", datasets, rows), ""]
    for record in records:
        if record["status"] != "ok":
            last = (record.get("error") or "").strip().splitlines()[-1:] or [""]
            lines.append(f"- {record['status']}: {record['method']} on {record['dataset']} seed {record['seed']} "
                         f"(run {record['run_id']}): {last[0]}")
    return "\n".join(lines) + "\n"


def _cell(records: list[RecordJson] | None, metric: str, template: str) -> str:
    if records is None:
        return "—"
    ok = [record for record in records if record["status"] == "ok"]
    values = [_number(record.get("metrics", {}).get(metric)) for record in ok]
    return format_stats(summarize(values), template, failed_runs=len(records) - len(ok))


def _number(value: Any) -> float:
    """A stored metric value as a float: a missing one (a metric the run did not record) is NaN."""
    return math.nan if value is None else float(value)


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
