"""What the leaderboard site shows, read off each suite's report model: nothing here re-derives a statistic.

The index lists every suite with its family, its last run, its headline table (the report block's metric,
`layout.table`: the same cells, text and bold as the suite's own report), its methods' ranks on that metric with
their intervals and P(best) (`rank_report`) and its claims' verdicts. A method
page gathers one registered method (a suite's `impl`) across suites: its variants' numbers on each suite's
headline metric beside that suite's best, and the papers' numbers cited for it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone

from harness.file_names import file_safe
from harness.registry import methods as method_registry
from harness.reporting.layout import Table, interval_note, table
from harness.reporting.model import CitedValue, ClaimResult, MetricInfo, ReportData
from harness.reporting.rank_notes import RankView, rank_view

INDEX_PAGE = "index.html"


@dataclass(frozen=True)
class SuiteSummary:
    """One suite as the index shows it."""

    name: str
    family: str
    description: str
    page: str                    # its leaderboard page, relative to the site's root
    last_run: datetime | None    # finished_at of its newest run; None when its runs do not say
    runs: int
    metric: MetricInfo           # the headline metric
    headline: Table
    cell_note: str               # what a cell shows (mean ± CI or ± std, over which seeds): `layout.interval_note`
    claims: tuple[ClaimResult, ...]
    ranks: RankView | None       # the headline metric's ranks with their intervals and P(best), when it ranks any

    @property
    def last_run_text(self) -> str:
        return self.last_run.strftime("%Y-%m-%d %H:%M UTC") if self.last_run else "not recorded"

    @property
    def last_run_value(self) -> float:
        """Seconds since the epoch, as the sort script reads it; NaN (sorted last) when not recorded."""
        return self.last_run.timestamp() if self.last_run else math.nan


@dataclass(frozen=True)
class MethodRow:
    """One of the method's variants in a suite: its cell text per dataset, and whether it is the best there."""

    label: str
    cells: tuple[str, ...]
    best: tuple[bool, ...]


@dataclass(frozen=True)
class SuiteBest:
    """The suite's best cell on one dataset (rank 1 in its headline table) and the rows that share it."""

    text: str
    by: tuple[str, ...]


@dataclass(frozen=True)
class MethodInSuite:
    suite: str
    suite_page: str
    metric: MetricInfo
    cell_note: str
    datasets: tuple[str, ...]
    rows: tuple[MethodRow, ...]
    best: tuple[SuiteBest | None, ...]  # per dataset; None when nothing there is ranked
    references: tuple[CitedValue, ...]  # the papers' numbers cited for the method in this suite


@dataclass(frozen=True)
class MethodPage:
    name: str         # the registered name, e.g. graph_anomaly.apf
    description: str
    page: str
    suites: tuple[MethodInSuite, ...]


@dataclass(frozen=True)
class Site:
    suites: tuple[SuiteSummary, ...]
    methods: tuple[MethodPage, ...]
    reports: dict[str, ReportData]          # suite name -> its report, for its leaderboard page
    row_methods: dict[str, dict[str, str]]  # suite name -> row label -> registered method name

    def page_of(self, suite: str, label: str) -> str:
        """The method page of a row label in `suite`'s tables."""
        return method_page(self.row_methods[suite][label])

    def method_pages(self, suite: str) -> dict[str, str]:
        """The pages of the methods that ran in `suite`, by name, in the suite's order."""
        return {name: method_page(name) for name in dict.fromkeys(self.row_methods[suite].values())}


def build_site(reports: list[ReportData]) -> Site:
    """The site's pages from the suites' reports, suites by family then name, methods by name."""
    reports = sorted(reports, key=lambda data: (data.suite.family, data.suite.suite))
    row_methods = {data.suite.suite: {label: method_name(data, label) for label in data.methods} for data in reports}
    names = sorted({name for labels in row_methods.values() for name in labels.values()})
    methods = tuple(_method_page(name, reports, row_methods) for name in names)
    return Site(tuple(_summary(data) for data in reports), methods,
                {data.suite.suite: data for data in reports}, row_methods)


def suite_page(suite: str) -> str:
    return f"suites/{file_safe(suite)}.html"


def method_page(name: str) -> str:
    return f"methods/{file_safe(name)}.html"


def method_name(data: ReportData, label: str) -> str:
    """The registered method behind a row label (a suite's method, or one variant of its grid); a method
    that only scores predictions is its own, named after its suite entry."""
    entry_name = data.variants[label][0] if label in data.variants else label
    entry = data.suite.methods[entry_name]
    if entry.impl is None:
        return f"{entry_name} (predictions in {data.suite.suite})"
    return method_registry.resolve(entry.impl, data.suite.family)


def last_run(data: ReportData) -> datetime | None:
    """When the suite's newest run finished (UTC), from its records' `finished_at`."""
    finished = [datetime.fromisoformat(at) for r in data.records if isinstance(at := r.get("finished_at"), str)]
    return max(finished).astimezone(timezone.utc) if finished else None


def _summary(data: ReportData) -> SuiteSummary:
    suite = data.suite
    return SuiteSummary(suite.suite, suite.family, suite.description, suite_page(suite.suite), last_run(data),
                        data.provenance.runs, data.metrics[data.main_metric], table(data, data.main_metric),
                        interval_note(data), data.claims, rank_view(data.ranks) if data.ranks is not None else None)


def _method_page(name: str, reports: list[ReportData], row_methods: dict[str, dict[str, str]]) -> MethodPage:
    appearances = []
    for data in reports:
        labels = tuple(label for label, method in row_methods[data.suite.suite].items() if method == name)
        if labels:
            appearances.append(_in_suite(data, labels))
    return MethodPage(name, _description(name), method_page(name), tuple(appearances))


def _in_suite(data: ReportData, labels: tuple[str, ...]) -> MethodInSuite:
    headline = table(data, data.main_metric)

    def key(label: str, dataset: str) -> tuple[str, str]:
        return (label, dataset) if headline.row_axis == "method" else (dataset, label)

    rows = tuple(MethodRow(label, tuple(headline.text(*key(label, d)) for d in data.datasets),
                           tuple(headline.ranks.get(key(label, d)) == 1 for d in data.datasets)) for label in labels)
    best = []
    for dataset in data.datasets:
        by = tuple(m for m in data.methods if headline.ranks.get(key(m, dataset)) == 1)
        best.append(SuiteBest(headline.text(*key(by[0], dataset)), by) if by else None)
    entries = {data.variants[label][0] for label in labels if label in data.variants} | set(labels)
    cited = tuple(ref for ref in data.references if ref.method in entries)
    return MethodInSuite(data.suite.suite, suite_page(data.suite.suite), data.metrics[data.main_metric],
                         interval_note(data), data.datasets, rows, tuple(best), cited)


def _description(name: str) -> str:
    if name in method_registry.names():
        return method_registry.entry(name).description
    return "predictions scored by the harness, not run by it"  # a predictions entry has no registered method
