"""CSV of every cell, measured and cited, one row each, for spreadsheets and re-plotting (names that look
like formulas quoted: `harness.spreadsheet_cells`)."""
from __future__ import annotations

import pandas as pd

from harness.aggregates import Estimate
from harness.reporting.aggregates import AggregateReport
from harness.reporting.layout import table
from harness.reporting.model import ReportData
from harness.spreadsheet_cells import quoted_text

COLUMNS = ["source", "method", "dataset", "metric", "kind", "higher_is_better", "mean", "std", "n", "ci_low",
           "ci_high", "n_nonfinite", "failed_runs", "rank", "bootstrap_stderr", "run_ids", "cited_from", "delta"]


def cells_frame(data: ReportData) -> pd.DataFrame:
    rows = []
    for metric, info in data.metrics.items():
        ranks = table(data, metric).ranks
        by_method = data.suite.report.rows == "method"
        for (method, dataset, name), cell in data.cells.items():
            if name != metric:
                continue
            key = (method, dataset) if by_method else (dataset, method)
            s = cell.stats
            rows.append({"source": "measured", "method": method, "dataset": dataset, "metric": metric,
                         "kind": info.kind, "higher_is_better": info.higher_is_better, "mean": s.mean, "std": s.std,
                         "n": s.n, "ci_low": s.ci_low, "ci_high": s.ci_high, "n_nonfinite": s.n_nonfinite,
                         "failed_runs": cell.failed_runs, "rank": ranks.get(key),
                         "bootstrap_stderr": cell.bootstrap_stderr,
                         "run_ids": " ".join(cell.run_ids), "cited_from": None, "delta": None})
    for ref in data.references:
        info = data.metrics[ref.metric]
        low, high = (ref.value - ref.ci95, ref.value + ref.ci95) if ref.ci95 is not None else (None, None)
        rows.append({"source": "cited", "method": ref.method, "dataset": ref.dataset, "metric": ref.metric,
                     "kind": info.kind, "higher_is_better": info.higher_is_better, "mean": ref.value, "std": ref.std,
                     "ci_low": low, "ci_high": high, "cited_from": ref.source, "delta": ref.delta})
    return pd.DataFrame(rows, columns=COLUMNS)


def render_csv(data: ReportData) -> str:
    return quoted_text(cells_frame(data)).to_csv(index=False)


AGGREGATE_COLUMNS = ["method", "statistic", "versus", "estimate", "ci_low", "ci_high", "metric", "datasets", "reps",
                     "missing"]


def render_aggregates_csv(report: AggregateReport) -> str:
    """One row per method and statistic, then one per probability of improvement (`versus` names the rival)."""
    block = report.block
    rows = [{"method": row.method, "statistic": name, **_estimate_columns(row.estimates.get(name), row.missing)}
            for row in report.rows for name in block.statistics]
    rows += [{"method": i.method, "statistic": "probability_of_improvement", "versus": i.rival,
              **_estimate_columns(i.estimate, i.missing)} for i in report.improvements]
    frame = pd.DataFrame(rows, columns=AGGREGATE_COLUMNS)
    frame = frame.assign(metric=block.metric, datasets=" ".join(report.datasets), reps=block.reps)
    return quoted_text(frame).to_csv(index=False)


def _estimate_columns(found: Estimate | None, missing: str) -> dict[str, float | str | None]:
    if found is None:
        return {"missing": missing or None}
    return {"estimate": found.point, "ci_low": found.low, "ci_high": found.high}
