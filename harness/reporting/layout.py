"""The table layout every renderer shares: which cells go where, how they read, which are best.

Keeping ranking and formatting here means Markdown, LaTeX, CSV and HTML can never
disagree on a value or on which cell is bold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from harness.reporting.model import Cell, CitedValue, ReportData


HARDWARE_CELL = "{mean:.3g} ± {ci95:.2g}"


@dataclass(frozen=True)
class Table:
    """One metric's grid: `rows` x `cols` labels and the cell at each position (None = not run)."""

    metric: str
    row_axis: str   # "method" or "dataset"
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: dict[tuple[str, str], Cell | None]
    ranks: dict[tuple[str, str], int]  # 1 = best, 2 = second, per column (methods compared within a dataset)
    template: str                      # the suite's cell format for quality metrics; 3 digits for hardware

    def text(self, row: str, col: str) -> str:
        return format_cell(self.cells[(row, col)], self.template)


def tables(data: ReportData) -> list[Table]:
    """One table per metric: the report's main metric first, then the other quality metrics, then hardware."""
    order = [data.main_metric] + [m for m in data.metrics if m != data.main_metric]
    return [table(data, metric) for metric in order]


def table(data: ReportData, metric: str) -> Table:
    by_method = data.suite.report.rows == "method"
    rows, cols = (data.methods, data.datasets) if by_method else (data.datasets, data.methods)
    cells = {}
    for row in rows:
        for col in cols:
            method, dataset = (row, col) if by_method else (col, row)
            cells[(row, col)] = data.cell(method, dataset, metric)
    if metric in data.suite.report.measures:  # rows of methods that never record the figure say nothing
        rows = [row for row in rows if any(cells[(row, col)] is not None for col in cols)]
    ranks = _ranks(data, metric, cells, by_method)
    template = data.suite.report.cell if data.metrics[metric].kind == "quality" else HARDWARE_CELL
    return Table(metric, data.suite.report.rows, tuple(rows), tuple(cols), cells, ranks, template)


def _ranks(data: ReportData, metric: str, cells: dict[tuple[str, str], Cell | None], by_method: bool) -> dict:
    """Best and second-best method per dataset; cells with no values or any NaN seed are never ranked."""
    if data.suite.report.bold == "none":
        return {}
    higher = data.metrics[metric].higher_is_better
    ranks = {}
    datasets = data.datasets
    for dataset in datasets:
        keyed = [((m, dataset) if by_method else (dataset, m), cells[(m, dataset) if by_method else (dataset, m)])
                 for m in data.methods]
        finite = [(k, c.stats.mean) for k, c in keyed
                  if c is not None and c.stats.n > 0 and not c.stats.n_nonfinite and math.isfinite(c.stats.mean)]
        finite.sort(key=lambda kv: -kv[1] if higher else kv[1])
        for rank, (key, _) in enumerate(finite[:2], start=1):
            ranks[key] = rank
    return ranks


def format_cell(cell: Cell | None, template: str) -> str:
    """The suite's cell template (fields mean, std, ci95, ci_low, ci_high, n); honest when n < 2 or values are NaN."""
    if cell is None:
        return "—"
    stats = cell.stats
    if stats.n == 0 and not stats.n_nonfinite:
        return f"all {cell.failed_runs} runs failed" if cell.failed_runs else "—"
    if stats.n == 0:
        text = "NaN"
    elif stats.n == 1:
        text = _format(template.split("±")[0].strip() or "{mean:.2f}", cell) + " (n=1)"
    else:
        text = _format(template, cell)
    if stats.n_nonfinite and stats.n:
        text += f" ({stats.n_nonfinite} NaN)"
    if cell.failed_runs:
        text += f" ({cell.failed_runs} failed)"
    return text


def _format(template: str, cell: Cell) -> str:
    """The template is checked when the suite loads, so formatting cannot fail here."""
    stats = cell.stats
    return template.format(mean=stats.mean, std=stats.std, ci95=stats.ci95, ci_low=stats.ci_low,
                           ci_high=stats.ci_high, n=stats.n)


def format_number(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:.{digits}f}"


def cited_text(ref: CitedValue) -> str:
    """A cited number as the paper gives it: value, and its spread when the paper has one."""
    return format_number(ref.value) + (f" ± {format_number(ref.std)}" if ref.std is not None else "")


def off_table(ref: CitedValue, cols: tuple[str, ...]) -> str:
    """For a number cited on a dataset that is not a column here (e.g. the paper's full-scale data),
    the text that carries it in the row label instead: ' on <dataset>: <value>'; else ''."""
    return "" if ref.dataset in cols else f" on {ref.dataset}: {cited_text(ref)}"


def interval_note(data: ReportData) -> str:
    """What a cell shows, read off the suite's cell template: mean ± 95% CI, or mean ± std."""
    seeds = ", ".join(map(str, data.seeds))
    template = data.suite.report.cell
    if any(f"{{{field}" in template for field in ("ci95", "ci_low", "ci_high")):
        spread = f"95% CI ({'Student t' if data.interval == 't' else 'percentile bootstrap'})"
    elif "{std" in template:
        spread = "standard deviation"
    else:
        return f"mean over seeds {seeds}"
    return f"mean ± {spread} over seeds {seeds}; n=1 cells show no interval"
