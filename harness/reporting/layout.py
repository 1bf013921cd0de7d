"""The table layout every renderer shares: which cells go where, how they read, which are best.

Keeping ranking and formatting here means Markdown, LaTeX, CSV and HTML can never
disagree on a value or on which cell is bold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from harness.reporting.model import Cell, CitedValue, ReportData
from harness.stats import CellStats


AUTO_CELL = "auto"  # mean ± 95% CI half-width, the half-width to 2 significant digits and the mean to match


@dataclass(frozen=True)
class Table:
    """One metric's grid: `rows` x `cols` labels and the cell at each position (None = not run)."""

    metric: str
    row_axis: str   # "method" or "dataset"
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: dict[tuple[str, str], Cell | None]
    ranks: dict[tuple[str, str], int]  # 1 = best, 2 = second, per column (methods compared within a dataset)
    template: str                      # the suite's cell format for quality metrics; AUTO_CELL for the rest

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
        rows = tuple(row for row in rows if any(cells[(row, col)] is not None for col in cols))
    ranks = _ranks(data, metric, cells, by_method)
    template = data.suite.report.template(metric) if data.metrics[metric].kind == "quality" else AUTO_CELL
    return Table(metric, data.suite.report.rows, tuple(rows), tuple(cols), cells, ranks, template)


def _ranks(data: ReportData, metric: str, cells: dict[tuple[str, str], Cell | None], by_method: bool) -> dict:
    """Best and second-best method per dataset (equal means share a mark); cells with no values, any NaN seed or
    a failed run are never ranked (its mean leaves out the seed it may have lost), nor are figures without a
    direction."""
    higher = data.metrics[metric].higher_is_better
    if data.suite.report.bold == "none" or higher is None:
        return {}
    ranks = {}
    for dataset in data.datasets:
        keyed = [((m, dataset) if by_method else (dataset, m), cells[(m, dataset) if by_method else (dataset, m)])
                 for m in data.methods]
        finite = {k: c.stats.mean for k, c in keyed
                  if c is not None and c.stats.n > 0 and not c.stats.n_nonfinite and not c.failed_runs
                  and math.isfinite(c.stats.mean)}
        podium = sorted(set(finite.values()), reverse=higher)[:2]
        ranks.update({key: podium.index(mean) + 1 for key, mean in finite.items() if mean in podium})
    return ranks


def format_cell(cell: Cell | None, template: str) -> str:
    """A cell as every table shows it (see `format_stats`); '—' when it was never run."""
    return "—" if cell is None else format_stats(cell.stats, template, cell.failed_runs)


def format_stats(stats: CellStats, template: str, failed_runs: int = 0) -> str:
    """The cell template (fields mean, std, ci95, ci_low, ci_high, n, or AUTO_CELL); honest when n < 2
    or values are NaN. The terminal table and every report format read cells through this one function."""
    if stats.n == 0 and not stats.n_nonfinite:
        return f"all {failed_runs} runs failed" if failed_runs else "—"
    if stats.n == 0:
        text = "NaN"
    elif template == AUTO_CELL:
        text = _auto(stats)
    elif stats.n == 1:
        text = _format(template.split("±")[0].strip() or "{mean:.2f}", stats) + " (n=1)"
    else:
        text = _format(template, stats)
    if stats.n_nonfinite and stats.n:
        text += f" ({stats.n_nonfinite} NaN)"
    if failed_runs:
        text += f" ({failed_runs} failed)"
    return text


def _format(template: str, stats: CellStats) -> str:
    """The template is checked when the suite loads, so formatting cannot fail here."""
    return template.format(mean=stats.mean, std=stats.std, ci95=stats.ci95, ci_low=stats.ci_low,
                           ci_high=stats.ci_high, n=stats.n)


def _auto(stats: CellStats) -> str:
    """`209.1234 ± 0.0097`, `196 ± 140`: the interval sets the digits; no exponents."""
    if stats.n == 1:
        return f"{_significant(stats.mean, 3)} (n=1)"
    half = stats.ci95
    if not math.isfinite(half) or half == 0:
        return f"{_significant(stats.mean, 3)} ± 0"
    decimals = max(0, 1 - math.floor(math.log10(half)))
    return f"{stats.mean:.{decimals}f} ± {half:.{decimals}f}"


def _significant(value: float, digits: int) -> str:
    """`value` to `digits` significant digits in plain notation (whole numbers keep all their digits)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    return f"{value:.{max(0, digits - 1 - math.floor(math.log10(abs(value))))}f}"


def format_number(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:.{digits}f}"


def cited_text(ref: CitedValue) -> str:
    """A cited number as the paper gives it, its spread named (the legend's ± is our 95% CI, not theirs)."""
    value = format_number(ref.value)
    if ref.std is not None:
        return f"{value} ± {format_number(ref.std)} (sd)"
    if ref.ci95 is not None:
        return f"{value} ± {format_number(ref.ci95)} (95% CI)"
    if ref.range is not None:
        return f"{value} (range {format_number(ref.range[0])}–{format_number(ref.range[1])})"
    return value


def off_table(ref: CitedValue, cols: tuple[str, ...]) -> str:
    """For a number cited on a dataset that is not a column here (e.g. the paper's full-scale data),
    the text that carries it in the row label instead: ' on <dataset>: <value>'; else ''."""
    return "" if ref.dataset in cols else f" on {ref.dataset}: {cited_text(ref)}"


def interval_note(data: ReportData) -> str:
    """What a cell shows, read off the suite's cell template: mean ± 95% CI, or mean ± std."""
    return spread_note(data.suite.report.cell, data.interval, data.seeds)


def spread_note(template: str, interval: str, seeds: tuple[int, ...] | list[int]) -> str:
    """The legend of a table of cells: what ± means for quality metrics, and for hardware and recorded figures."""
    listed = ", ".join(map(str, seeds))
    ci = f"95% CI half-width ({'Student t' if interval == 't' else 'percentile bootstrap'})"
    if template == AUTO_CELL or any(f"{{{field}" in template for field in ("ci95", "ci_low", "ci_high")):
        spread = f"mean ± {ci}"
    elif "{std" in template:
        spread = "mean ± standard deviation"
    else:
        spread = "mean"
    return (f"{spread} over seeds {listed}; hardware and recorded figures: mean ± {ci}, digits set by the "
            "interval; n=1 cells show no interval")
