"""lm-eval's own results layout (task, version, filter, n-shot, metric, value, stderr) from a report's `runs.csv`.

The harness's report has one table per registered metric with the spread over seeds; this puts every figure
lm-eval reported beside it the way `lm_eval` prints it, one table per method and dataset. Value is the mean over
the seeds' runs; Stderr is lm-eval's own within-run standard error (the mean over seeds, for a document-level
bootstrap or analytic estimate does not change with the seed); `seed sd` is the spread over seeds, kept apart.

    python -m methods.lm_eval_tasks.lm_eval_table reports/lm_eval_tiny/runs.csv reports/lm_eval_tiny/lm_eval.md
"""
from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from harness.record_json import MeasurementJson, RecordJson
from harness.results import records_of_export
from harness.spreadsheet_cells import read_harness_csv

HEADER = "| Tasks | Version | Filter | n-shot | Metric | | Value | | Stderr | seed sd | runs |"


def _figures(record: RecordJson) -> dict[str, MeasurementJson]:
    """lm-eval's figures of one run: `<task>/<name>` measurements (`measure.` columns) only."""
    return {name: figure for name, figure in record.get("measurements", {}).items() if "/" in name}


def _rows(records: list[RecordJson]) -> list[str]:
    values: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    info: dict[str, MeasurementJson] = {}
    for record in records:
        for name, figure in _figures(record).items():
            task, key = name.split("/", 1)
            metric, _, filter_name = key.partition(",")
            values[(task, metric, filter_name)].append(figure["value"])
            info[name] = figure
    lines = []
    for (task, metric, filter_name), seen in sorted(values.items()):
        if not filter_name or metric.endswith("_stderr"):
            continue  # n-shot and version are columns; stderr goes beside its metric
        stderr = values.get((task, f"{metric}_stderr", filter_name))
        better = info[f"{task}/{metric},{filter_name}"].get("higher_is_better")
        arrow = "" if better is None else "↑" if better else "↓"
        version = values.get((task, "version", ""), [float("nan")])[0]
        shots = values.get((task, "n-shot", ""), [float("nan")])[0]
        spread = f"{statistics.stdev(seen):.4f}" if len(seen) > 1 else "—"
        error = f"± | {statistics.fmean(stderr):.4f}" if stderr else "| N/A"
        lines.append(f"| {task} | {version:g} | {filter_name} | {shots:g} | {metric} | {arrow} | "
                     f"{statistics.fmean(seen):.4f} | {error} | {spread} | {len(seen)} |")
    return lines


def layout(records: Iterable[RecordJson], title: str) -> str:
    """Markdown: for each (method, dataset) with ok runs, lm-eval's results table over its seeds."""
    groups: dict[tuple[str, str], list[RecordJson]] = defaultdict(list)
    for record in records:
        if record.get("status") == "ok":
            groups[(str(record["method"]), str(record["dataset"]))].append(record)
    parts = [f"# {title}: lm-eval's results layout", "",
             "Value: mean over seeds; Stderr: lm-eval's within-run standard error (not seed variance); "
             "seed sd: standard deviation over seeds; ↑/↓: lm-eval's higher-is-better.", ""]
    for (method, dataset), runs in groups.items():
        parts += [f"## {method} on {dataset}", "", HEADER, "|---|---:|---|---:|---|---|---:|---|---:|---:|---:|",
                  *_rows(runs), ""]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m methods.lm_eval_tasks.lm_eval_table RUNS_CSV OUT_MD", file=sys.stderr)
        return 3
    runs, out = Path(argv[0]), Path(argv[1])
    records = records_of_export(read_harness_csv(runs), str(runs))
    out.write_text(layout(records, str(records[0]["suite"]) if records else runs.parent.name), encoding="utf-8")
    print(f"lm-eval layout written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
