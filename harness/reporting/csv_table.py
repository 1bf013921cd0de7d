"""CSV of every cell, measured and cited, one row each, for spreadsheets and re-plotting."""
from __future__ import annotations

import pandas as pd

from harness.reporting.layout import table
from harness.reporting.model import ReportData

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
    return cells_frame(data).to_csv(index=False)
