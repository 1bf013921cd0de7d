"""The Markdown report: measured tables, cited numbers, claims, ranking and rank statistics, failures, run ids,
provenance."""
from __future__ import annotations

from harness.claim_registry import REGISTRATION_NOTE
from harness.file_names import file_safe
from harness.reporting.aggregates import improvement_rows, statistic_columns, statistic_rows
from harness.reporting.claims import test_note
from harness.reporting.layout import Table, cited_text, format_number, interval_note, off_table, tables
from harness.reporting.markdown_table import markdown_table
from harness.reporting.model import ReportData
from harness.reporting.rank_notes import (HEADING, comparison_notes, coverage_notes, leader_note, method_note,
                                          rank_cells, rank_columns)
from harness.stats import mean_win_rate

_MARKS = {1: ("**", "**"), 2: ("<ins>", "</ins>")}


def escape(text: str) -> str:
    """Markdown table cells: escape the pipe and the characters that start markup or HTML."""
    out = str(text)
    for char in ("\\", "|", "*", "_", "`", "[", "]", "<", ">"):
        out = out.replace(char, "\\" + char)
    return out


def render_markdown(data: ReportData) -> str:
    suite = data.suite
    lines = [f"# Suite `{escape(suite.suite)}`", ""]
    if suite.description:
        lines += [escape(suite.description), ""]
    lines += [f"Measured values: {interval_note(data)}. **Bold**: best, <ins>underlined</ins>: second "
              "(direction-aware; equal means share a mark). Rows marked *cited* are numbers quoted from papers, "
              "not measured here.", ""]
    for table in tables(data):
        lines += _table(data, table)
    for section in (_definitions, _curves, _ranking, _ranks, _aggregates, _references, _notes, _claims, _bootstrap,
                    _failures, _runs):
        lines += section(data)
    lines += ["---", f"<sub>{escape(data.provenance.line())}</sub>", ""]
    return "\n".join(lines)


def _table(data: ReportData, table: Table) -> list[str]:
    info = data.metrics[table.metric]
    unit = f" [{info.unit}]" if info.unit else ""
    measured = [(escape(row), [_marked(table, row, col) for col in table.cols]) for row in table.rows]
    cited = [(f"*cited* {escape(ref.method)}{escape(off_table(ref, table.cols))} ({escape(ref.source)})",
              [cited_text(ref) if col == ref.dataset else "" for col in table.cols])
             for ref in data.references if ref.metric == table.metric and table.row_axis == "method"]
    return [f"## {escape(table.metric)}{' ' + info.arrow if info.arrow else ''}{escape(unit)} ({info.kind})", "",
            *markdown_table(table.row_axis, [escape(c) for c in table.cols], measured + cited), ""]


def _marked(table: Table, row: str, col: str) -> str:
    """A cell's text, escaped, bold when best and underlined when second."""
    opening, closing = _MARKS.get(table.ranks.get((row, col), 0), ("", ""))
    return f"{opening}{escape(table.text(row, col))}{closing}"


def _definitions(data: ReportData) -> list[str]:
    """What each quality metric computes (tie rules included), as its registration describes it."""
    described = [(name, info) for name, info in data.metrics.items() if info.description]
    if not described:
        return []
    lines = ["## Metrics", ""]
    lines += [f"- `{name}`: {escape(info.description)}" + (" (deterministic: compared exactly)" if info.deterministic
                                                           else "") for name, info in described]
    return lines + [""]


def _ranking(data: ReportData) -> list[str]:
    metric = data.main_metric
    means = {d: {m: c.stats.mean for m in data.methods if (c := data.cell(m, d, metric)) and c.stats.n}
             for d in data.datasets}
    higher = data.metrics[metric].higher_is_better
    rates = mean_win_rate(means, higher) if higher is not None else {}
    if not rates:
        return []
    ranked = [(escape(m), [f"{rates[m]:.2f}"]) for m in sorted(rates, key=lambda m: -rates[m])]
    return [f"## Ranking by mean win rate ({escape(metric)}, across datasets)", "",
            *markdown_table("method", ["win rate"], ranked), ""]


def _ranks(data: ReportData) -> list[str]:
    """Each method's rank with its interval and P(best), the leader's flips, then the comparison over datasets
    with its critical-difference diagram, which the report's `png` format writes beside it."""
    ranks = data.ranks
    if ranks is None:
        if data.metrics[data.main_metric].higher_is_better is None or len(data.methods) < 2:
            return []
        return [f"## {HEADING}", "", f"Not shown: fewer than two methods have a measured "
                f"{escape(data.main_metric)} on every dataset the suite ran, so no two can be ranked on the same "
                "datasets.", ""]
    rows = [(escape(row.method), [escape(c) for c in rank_cells(ranks, row)]) for row in ranks.uncertainty.methods]
    lines = [f"## {HEADING}", "", escape(method_note(ranks)) + ".", "",
             *markdown_table("method", [escape(c) for c in rank_columns(ranks)], rows), "",
             *(f"{escape(note)}." for note in [leader_note(ranks), *coverage_notes(ranks)]), ""]
    if ranks.comparison is not None:
        lines += [f"![critical-difference diagram of {escape(ranks.metric)}]({file_safe(ranks.figure_name)}.png)", ""]
    return lines + [f"- {escape(note)}." for note in comparison_notes(ranks)] + [""]


def _aggregates(data: ReportData) -> list[str]:
    """Each method's aggregates across datasets, then the suite's method's probability of improvement."""
    report = data.aggregates
    if report is None:
        return []
    rows = [(escape(method), cells) for method, cells in statistic_rows(report)]
    lines = [f"## Aggregates across datasets ({escape(report.block.metric)}, normalised)", "",
             escape(report.method_note), "",
             *markdown_table("method", [escape(c) for c in statistic_columns(report)], rows), ""]
    if report.improvements:
        lines += ["Probability of improvement, P(X > Y), with its 95% interval:", "",
                  "| X | Y | P(X > Y) |", "|---|---|---:|",
                  *(f"| {escape(x)} | {escape(y)} | {escape(text)} |" for x, y, text in improvement_rows(report)), ""]
    return lines


def _references(data: ReportData) -> list[str]:
    if not data.references:
        return []
    lines = ["## Cited from papers (not measured here)", "",
             "| method | dataset | metric | cited | source | ours | Δ (ours − cited) |",
             "|---|---|---|---:|---|---:|---:|"]
    for ref in data.references:
        cited = cited_text(ref)
        delta = ref.delta_text
        lines.append(f"| {escape(ref.method)} | {escape(ref.dataset)} | {escape(ref.metric)} | {cited} | "
                     f"{escape(ref.source)} | {format_number(ref.measured)} | {delta} |")
    return lines + [""]


def _curves(data: ReportData) -> list[str]:
    """Links to the learning-curve plots, which the report's `png` format writes beside it."""
    if not data.curves:
        return []
    from harness.reporting.curve_bands import curve_panels
    from harness.reporting.curve_plots import curve_figure_name

    lines = ["## Learning curves", "", "Mean over seeds with its 95% interval as a band, per method.", ""]
    for curve, dataset in sorted(curve_panels(data.records, data.curves)):
        name = curve_figure_name(curve, dataset)
        lines += [f"![{escape(curve)} on {escape(dataset)}]({file_safe(name)}.png)", ""]
    return lines


def _notes(data: ReportData) -> list[str]:
    notes = data.suite.report.notes
    return ["## Read the results with these notes", "", *(f"- {escape(note)}" for note in notes), ""] if notes else []


def _claims(data: ReportData) -> list[str]:
    if not data.claims:
        return []
    lines = ["## Claims checked against measured results", "", f"Test: {escape(test_note(data))}.", "",
             f"Registration: {escape(REGISTRATION_NOTE)}.", "",
             "| verdict | claim | registration | statistic | runs |", "|---|---|---|---|---|"]
    for claim in data.claims:
        runs = ", ".join(claim.run_ids) or "—"
        lines.append(f"| {claim.verdict} | {escape(claim.text)} | {escape(claim.registration.note)} | "
                     f"{escape(claim.statistic)} | {runs} |")
    return lines + [""]


def _bootstrap(data: ReportData) -> list[str]:
    metrics = data.quality_metrics()
    if not any(c.bootstrap_stderr is not None for c in data.cells.values()):
        return []
    lines = ["## Within-run bootstrap stderr (test-set noise of one run, mean over seeds; not seed variance)", "",
             "| method | dataset | " + " | ".join(escape(m) for m in metrics) + " |",
             "|---|---|" + "---:|" * len(metrics)]
    for method in data.methods:
        for dataset in data.datasets:
            values = [format_number(c.bootstrap_stderr if (c := data.cell(method, dataset, m)) else None)
                      for m in metrics]
            lines.append(f"| {escape(method)} | {escape(dataset)} | " + " | ".join(values) + " |")
    return lines + [""]


def _failures(data: ReportData) -> list[str]:
    if not data.failures:
        return []
    lines = ["## Runs that did not finish", "",
             "| method | dataset | seed | status | run | error |", "|---|---|---:|---|---|---|"]
    for f in data.failures:
        last = f.error.splitlines()[-1] if f.error else ""
        lines.append(f"| {escape(f.method)} | {escape(f.dataset)} | {f.seed} | {f.status} | {f.run_id} "
                     f"| {escape(last)} |")
    return lines + [""]


def _runs(data: ReportData) -> list[str]:
    lines = ["## Runs behind each measured cell", "", "| method | dataset | seeds | run ids |", "|---|---|---|---|"]
    for method in data.methods:
        for dataset in data.datasets:
            cell = data.cell(method, dataset, data.main_metric)
            if cell is not None and cell.run_ids:
                lines.append(f"| {escape(method)} | {escape(dataset)} | {', '.join(map(str, cell.seeds))} | "
                             f"{', '.join(cell.run_ids)} |")
    return lines + [""]
