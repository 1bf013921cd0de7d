"""The leaderboard as one static HTML page: opens offline, sorts and filters in place, runs nothing foreign.

The markup is the jinja2 template `templates/leaderboard.html.j2` (with its `leaderboard.css` and
`leaderboard.js`); this module prepares what it shows. Everything is inline (CSS, a small vanilla
script, plots as base64 PNG `data:` URIs) and a Content-Security-Policy forbids any network load and
any script but ours (by hash), so a name that slipped past escaping still could not run. Autoescaping
is on, so every string from a suite, method, dataset, error or source is escaped; no such string is
put inside the script, which reads them from the DOM. Values and bold cells come from `layout`, so
this page agrees with the Markdown and LaTeX reports.

Stable hooks (tests and scripts may rely on them):
- `#title`, `#description`, `#interval-note`; `#provenance` with `#git-shas` and `#hardware`;
  `footer#footer` holds `Provenance.line()`.
- Filters: `select#filter-dataset` (value "" = all, else a dataset's index in `data.datasets`),
  `select#filter-metric` (value "" = all, else a table's index), `input#filter-method`
  (case-insensitive substring of method names).
- Per metric `section.leaderboard#metric-{i}` (`data-metric`, `kind-quality`/`kind-hardware`)
  with `table.leaderboard-table` (`data-higher` "1"/"0"). Column headers `th.sortable[data-col]`:
  a click sorts `tbody.measured-rows` by `data-value`, best first, then toggles (`aria-sort`);
  NaN always last.
- Rows and columns carry their axis: `data-method="<name>"` or `data-dataset="<index>"`.
  Measured rows `tr.measured`, cells `td.cell.measured[data-col][data-value][title]` (`title`
  lists seeds and run ids), `.best` (bold, rank 1), `.second` (rank 2), `td.cell.missing` (not run).
  Cited rows `tbody.cited-rows > tr.cited`, cells `td.cell.cited` with `.source` and `.delta`.
- In a site (`links` given): `nav#site-nav` with `a#to-index` and an `a.method-page` per method page;
  method row labels link to their method page (`a.method-link`); a measured cell's text links to its block
  on the suite's explain page (`a.explain-link`).
- `#claims` (`li.claim.verdict-<slug>[data-verdict]` with `.verdict`, `.claim-text`,
  `.registration[data-registration]` (pre-registered, post hoc or registration unknown), `.statistic`,
  `.run-ids`) and `#failures` (`tr.failure`) always; `#references` (cited numbers), `#notes`
  (`li.note`, the suite's `report.notes`) and `#plots` (`figure.plot > img`) only when there are some.
- `#ranks` when the main metric ranks two or more methods: `table.rank-table` with a `tr.rank-row[data-method]`
  per method, best first (`td.mean-rank` with its interval, `td.p-best`, a `td.dataset-rank` per dataset),
  `p.rank-note` and `ul.rank-tests` (Friedman, Nemenyi, Wilcoxon-Holm, or why not shown).
"""
from __future__ import annotations

import base64
import hashlib
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from harness.reporting.claims import test_note
from harness.reporting.layout import Table, cited_text, format_number, interval_note, off_table, tables
from harness.reporting.model import Cell, CitedValue, MetricInfo, ReportData
from harness.reporting.rank_notes import HEADING as RANK_HEADING
from harness.reporting.rank_notes import rank_view


@dataclass(frozen=True)
class Leaderboard:
    """One metric's table as the page shows it: what the template cannot read off `layout.Table` alone."""

    index: int                     # the value the metric filter selects it by
    table: Table
    info: MetricInfo
    col_axis: str                  # "dataset" or "method", whichever the rows are not
    higher: int                    # 1 when higher is better: the first click on a header sorts best first
    cited: tuple[CitedValue, ...]  # the papers' numbers for this metric, as rows of their own


@dataclass(frozen=True)
class SiteLinks:
    """Where a page inside a leaderboard site (`harness site`) links to: relative paths, so it opens from file://."""

    index: str                   # the site's index page
    method_pages: dict[str, str]  # registered method name -> its page
    row_methods: dict[str, str]   # a row label (a suite's method or variant) -> its registered method name
    explain: dict[tuple[str, str, str], str]  # (method, dataset, metric) -> its block on the explain page

    def method_page(self, label: str) -> str | None:
        name = self.row_methods.get(label)
        return None if name is None else self.method_pages.get(name)

    def explain_href(self, cell: Cell) -> str | None:
        """Where the runs and arithmetic behind a measured cell are shown (`harness.reporting.explain_page`)."""
        return self.explain.get((cell.method, cell.dataset, cell.metric))


def render_html(data: ReportData, plots: dict[str, bytes], links: SiteLinks | None = None) -> str:
    """The whole page; `plots` maps a title to PNG bytes, shown in the order given; `links` when it is part
    of a site (a link back to the index, method names linked to their pages)."""
    css, script = asset("leaderboard.css"), asset("leaderboard.js")
    return environment().get_template("leaderboard.html.j2").render(
        policy=content_policy(css, script), css=Markup(css), script=Markup(script), links=links,
        suite=data.suite, interval_note=interval_note(data), provenance=data.provenance, datasets=data.datasets,
        boards=[_leaderboard(data, board, index) for index, board in enumerate(tables(data))],
        references=data.references, notes=data.suite.report.notes, claims=data.claims, test_note=test_note(data),
        failures=data.failures, plots={name: base64.b64encode(png).decode() for name, png in plots.items()},
        ranks=rank_view(data.ranks) if data.ranks is not None else None, rank_heading=RANK_HEADING)


@cache
def environment() -> Environment:
    """The templates' environment: autoescaped, strict, with the filters every page's cells need."""
    environment = Environment(loader=PackageLoader("harness.reporting", "templates"), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)
    environment.filters.update(sort_value=_sort_value, runs_title=_runs_title, cited_text=cited_text,
                               format_number=format_number, off_table=off_table, slug=_slug)
    return environment


@cache
def asset(name: str) -> str:
    """A file of `templates/` (a style sheet or script), inlined into pages."""
    return files("harness.reporting").joinpath("templates", name).read_text(encoding="utf-8")


def content_policy(css: str, script: str) -> str:
    """Nothing loads from anywhere; only our own style and script (by hash), and data: images."""
    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    return (f"default-src 'none'; img-src data:; style-src 'sha256-{digest(css)}'; "
            f"script-src 'sha256-{digest(script)}'; base-uri 'none'; form-action 'none'")


def _leaderboard(data: ReportData, board: Table, index: int) -> Leaderboard:
    info = data.metrics[board.metric]
    cited = tuple(ref for ref in data.references if ref.metric == board.metric and board.row_axis == "method")
    return Leaderboard(index, board, info, "dataset" if board.row_axis == "method" else "method",
                       int(info.higher_is_better is True), cited)


def _runs_title(cell: Cell) -> str:
    """A measured cell's hover text: the seeds and run ids behind it."""
    parts = [f"{cell.method} on {cell.dataset}",
             f"seeds {', '.join(map(str, cell.seeds)) or 'none'}",
             f"runs {', '.join(cell.run_ids) or 'none'}"]
    if cell.failed_runs:
        parts.append(f"{cell.failed_runs} failed")
    if cell.bootstrap_stderr is not None:
        parts.append(f"within-run bootstrap stderr {format_number(cell.bootstrap_stderr)}")
    return " · ".join(parts)


def _sort_value(value: float) -> str:
    """A value as the sort script parses it; non-finite ones sort last and are never best."""
    return repr(float(value)) if math.isfinite(value) else "NaN"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
