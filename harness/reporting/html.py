"""The leaderboard as one static HTML page: opens offline, sorts and filters in place, runs nothing foreign.

Everything is inline (CSS, a small vanilla script, plots as base64 PNG `data:` URIs) and a
Content-Security-Policy forbids any network load and any script but ours (by hash), so a
name that slipped past escaping still could not run. Every string from a suite, method,
dataset, error or source is escaped with `html.escape(quote=True)`; no such string is put
inside the script, which reads them from the DOM. Values and bold cells come from
`layout`, so this page agrees with the Markdown and LaTeX reports.

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
- `#claims` (`li.claim.verdict-<slug>[data-verdict]` with `.verdict`, `.claim-text`, `.statistic`,
  `.run-ids`) and `#failures` (`tr.failure`) always; `#references` (cited numbers), `#notes`
  (`li.note`, the suite's `report.notes`) and `#plots` (`figure.plot > img`) only when there are some.
"""
from __future__ import annotations

import base64
import hashlib
import html
import math
import re

from harness.reporting.claims import TEST_NOTE
from harness.reporting.layout import Table, cited_text, format_number, interval_note, off_table, tables
from harness.reporting.model import Cell, CitedValue, ReportData

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:80rem;padding:0 1rem;color:#1d1d1f}
h1{margin-bottom:.2rem}h2{margin-top:2rem;font-size:1.15rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{padding:.3rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}
th.row-label{text-align:left}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}dd{margin:0}dd ul{margin:0;padding-left:1.1rem}
td.cell{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.sortable{cursor:pointer;user-select:none}
th.sortable[aria-sort=ascending]::after{content:" \\25B2"}th.sortable[aria-sort=descending]::after{content:" \\25BC"}
.best{font-weight:bold}.second{text-decoration:underline}
.n,.source,.delta,.run-ids,.statistic{color:#555;font-size:.85em}
tbody.cited-rows tr{background:#f4f1e8;font-style:italic}
.tag{font-size:.75em;background:#8a6d1d;color:#fff;border-radius:3px;padding:0 .3em;font-style:normal}
.verdict{font-weight:bold;padding:0 .3em;border-radius:3px;background:#ddd}
.verdict-supported .verdict{background:#cde8cd}.verdict-contradicted .verdict{background:#f3cccc}
#filters{display:flex;gap:1rem;flex-wrap:wrap;padding:.6rem;background:#f3f3f5;border-radius:6px}
pre{white-space:pre-wrap;margin:0}figure.plot img{max-width:100%}
footer{margin-top:2rem;color:#555;font-size:.85em}
[hidden]{display:none!important}
"""

# Reads names from data-* attributes only; no report string is ever written into this script.
_JS = """
(function () {
  function value(row, col) {
    var cell = row.querySelector('td[data-col="' + col + '"]');
    var v = cell ? parseFloat(cell.getAttribute('data-value')) : NaN;
    return isNaN(v) ? null : v;
  }
  function sortBy(header) {
    var table = header.closest('table');
    var col = header.getAttribute('data-col');
    var state = header.getAttribute('aria-sort');
    var ascending = state === 'none' ? table.getAttribute('data-higher') !== '1' : state === 'descending';
    table.querySelectorAll('th.sortable').forEach(function (h) { h.setAttribute('aria-sort', 'none'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.querySelector('tbody.measured-rows');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, col), y = value(b, col);
      if (x === null || y === null) { return (x === null) - (y === null); }
      return ascending ? x - y : y - x;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  function applyFilters() {
    var dataset = document.getElementById('filter-dataset').value;
    var metric = document.getElementById('filter-metric').value;
    var query = document.getElementById('filter-method').value.trim().toLowerCase();
    document.querySelectorAll('[data-method], [data-dataset]').forEach(function (el) {
      var okMethod = !el.hasAttribute('data-method') ||
        el.getAttribute('data-method').toLowerCase().indexOf(query) !== -1;
      var okDataset = !el.hasAttribute('data-dataset') || dataset === '' ||
        el.getAttribute('data-dataset') === dataset;
      el.hidden = !(okMethod && okDataset);
    });
    document.querySelectorAll('section.leaderboard').forEach(function (section) {
      section.hidden = metric !== '' && section.getAttribute('data-index') !== metric;
    });
  }
  document.querySelectorAll('th.sortable').forEach(function (header) {
    header.addEventListener('click', function () { sortBy(header); });
  });
  ['filter-dataset', 'filter-metric', 'filter-method'].forEach(function (id) {
    document.getElementById(id).addEventListener('input', applyFilters);
  });
})();
"""


def render_html(data: ReportData, plots: dict[str, bytes]) -> str:
    """The whole page; `plots` maps a title to PNG bytes, shown in the order given."""
    suite = data.suite
    title = suite.suite + (f" — {suite.description}" if suite.description else "")
    boards = tables(data)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_policy()}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f'<header><h1 id="title">{_e(suite.suite)}</h1>',
        f'<p id="description">{_e(suite.description)}</p>',
        f'<p id="interval-note">Measured: {_e(interval_note(data))}. Bold: best, underlined: second '
        "(direction-aware). Rows tagged <em>cited</em> are quoted from papers, not measured here.</p></header>",
        _provenance(data),
        _filters(data, boards),
        '<main id="leaderboards">',
        *(_leaderboard(data, board, index) for index, board in enumerate(boards)),
        "</main>",
        _references(data),
        _notes(data),
        _claims(data),
        _failures(data),
        _plots(plots),
        f'<footer id="footer">{_e(data.provenance.line())}</footer>',
        f"<script>{_JS}</script></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _policy() -> str:
    """Nothing loads from anywhere; only our own style and script (by hash), and data: images."""
    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    return (f"default-src 'none'; img-src data:; style-src 'sha256-{digest(_CSS)}'; "
            f"script-src 'sha256-{digest(_JS)}'; base-uri 'none'; form-action 'none'")


def _provenance(data: ReportData) -> str:
    p = data.provenance
    shas = ", ".join(f"<code>{_e(s)}</code>" for s in p.git_shas) or "unknown"
    hardware = "".join(f"<li>{_e(h)}</li>" for h in p.hardware) or "<li>unknown</li>"
    rows = [("suite file", f"{_e(p.suite_file)} (sha256 <code>{_e(p.suite_sha256[:12])}</code>)"),
            ("harness", _e(p.harness_version)),
            ("runs at git", f'<span id="git-shas">{shas}</span>'
                            + (f" ({p.dirty_runs} runs with uncommitted changes)" if p.dirty_runs else "")),
            ("rendered at git", _e(p.rendered)),
            ("hardware", f'<ul id="hardware">{hardware}</ul>'),
            ("runs", f"{p.runs} (matched by {_e(p.selection)}), newest {_e(p.date)}")]
    items = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return f'<section id="provenance"><h2>Provenance</h2><dl>{items}</dl></section>'


def _filters(data: ReportData, boards: list[Table]) -> str:
    datasets = "".join(f'<option value="{i}">{_e(d)}</option>' for i, d in enumerate(data.datasets))
    metrics = "".join(f'<option value="{i}">{_e(data.metrics[b.metric].label)}</option>'
                      for i, b in enumerate(boards))
    return ('<nav id="filters">'
            f'<label>dataset <select id="filter-dataset"><option value="">all</option>{datasets}</select></label>'
            f'<label>metric <select id="filter-metric"><option value="">all</option>{metrics}</select></label>'
            '<label>method <input id="filter-method" type="search" placeholder="filter by name"></label></nav>')


def _axis(data: ReportData, axis: str, label: str) -> str:
    """The attribute the filters match: a method by name, a dataset by its index."""
    if axis == "method":
        return f'data-method="{_e(label)}"'
    return f'data-dataset="{data.datasets.index(label)}"'


def _leaderboard(data: ReportData, board: Table, index: int) -> str:
    info = data.metrics[board.metric]
    col_axis = "dataset" if board.row_axis == "method" else "method"
    head = "".join(f'<th class="sortable" scope="col" data-col="{j}" aria-sort="none" {_axis(data, col_axis, c)}>'
                   f"{_e(c)}</th>" for j, c in enumerate(board.cols))
    body = "".join(_measured_row(data, board, row, col_axis) for row in board.rows)
    cited = [ref for ref in data.references if ref.metric == board.metric and board.row_axis == "method"]
    cited_body = ("<tbody class=\"cited-rows\">" + "".join(_cited_row(data, board, ref) for ref in cited) + "</tbody>"
                  if cited else "")
    return (f'<section class="leaderboard kind-{_e(info.kind)}" id="metric-{index}" data-index="{index}" '
            f'data-metric="{_e(board.metric)}"><h2>{_e(data.metrics[board.metric].label)} '
            f'<small>({_e(info.kind)})</small></h2>'
            f'<table class="leaderboard-table" data-higher="{int(info.higher_is_better is True)}">'
            f'<thead><tr><th scope="col" class="corner">{_e(board.row_axis)} \\ {_e(col_axis)} '
            f"{_e(info.arrow)}</th>{head}</tr></thead>"
            f'<tbody class="measured-rows">{body}</tbody>{cited_body}</table></section>')


def _measured_row(data: ReportData, board: Table, row: str, col_axis: str) -> str:
    cells = []
    for j, col in enumerate(board.cols):
        cell = board.cells[(row, col)]
        where = _axis(data, col_axis, col)
        if cell is None:
            cells.append(f'<td class="cell missing" data-col="{j}" data-value="NaN" {where} title="not run">—</td>')
            continue
        rank = board.ranks.get((row, col))
        text = _e(board.text(row, col)) + (f' <span class="n">(n={cell.stats.n})</span>' if cell.stats.n > 1 else "")
        classes = "cell measured" + {1: " best", 2: " second"}.get(rank, "")
        cells.append(f'<td class="{classes}" data-col="{j}" data-value="{_number(cell.stats.mean)}" {where} '
                     f'title="{_e(_runs_title(cell))}">{f"<strong>{text}</strong>" if rank == 1 else text}</td>')
    return (f'<tr class="measured" {_axis(data, board.row_axis, row)}><th scope="row" class="row-label">'
            f'{_e(row)}</th>{"".join(cells)}</tr>')


def _runs_title(cell: Cell) -> str:
    parts = [f"{cell.method} on {cell.dataset}",
             f"seeds {', '.join(map(str, cell.seeds)) or 'none'}",
             f"runs {', '.join(cell.run_ids) or 'none'}"]
    if cell.failed_runs:
        parts.append(f"{cell.failed_runs} failed")
    if cell.bootstrap_stderr is not None:
        parts.append(f"within-run bootstrap stderr {format_number(cell.bootstrap_stderr)}")
    return " · ".join(parts)


def _number(value: float) -> str:
    """The mean as the script parses it; non-finite ones sort last and are never best."""
    return repr(float(value)) if math.isfinite(value) else "NaN"


def _cited_row(data: ReportData, board: Table, ref: CitedValue) -> str:
    cells = []
    for j, col in enumerate(board.cols):
        where = _axis(data, "dataset", col)
        if col != ref.dataset:
            cells.append(f'<td class="cell cited empty" data-col="{j}" {where}></td>')
            continue
        cells.append(f'<td class="cell cited" data-col="{j}" data-value="{_number(ref.value)}" {where} '
                     f'title="cited from {_e(ref.source)}; ours {_e(format_number(ref.measured))}">'
                     f'{_e(cited_text(ref))} <span class="delta">ours − cited: {_e(ref.delta_text)}</span></td>')
    return (f'<tr class="cited" {_axis(data, "method", ref.method)}><th scope="row" class="row-label">'
            f'{_e(ref.method)} <span class="tag">cited</span>{_e(off_table(ref, board.cols))} '
            f'<span class="source">{_e(ref.source)}</span></th>'
            f'{"".join(cells)}</tr>')


def _references(data: ReportData) -> str:
    if not data.references:
        return ""
    rows = "".join(
        f'<tr class="cited" {_axis(data, "method", r.method)}><td>{_e(r.method)}</td><td>{_e(r.dataset)}</td>'
        f'<td>{_e(r.metric)}</td><td class="cell">{_e(cited_text(r))}</td><td class="source">{_e(r.source)}</td>'
        f'<td class="cell">{_e(format_number(r.measured))}</td><td class="cell delta">{_e(r.delta_text)}</td></tr>'
        for r in data.references)
    return ('<section id="references"><h2>Cited from papers (not measured here)</h2><table><thead><tr>'
            "<th>method</th><th>dataset</th><th>metric</th><th>cited</th><th>source</th><th>ours</th>"
            f"<th>Δ (ours − cited)</th></tr></thead><tbody>{rows}</tbody></table></section>")


def _notes(data: ReportData) -> str:
    items = "".join(f'<li class="note">{_e(note)}</li>' for note in data.suite.report.notes)
    return f'<section id="notes"><h2>Read the results with these notes</h2><ul>{items}</ul></section>' if items else ""


def _claims(data: ReportData) -> str:
    items = "".join(
        f'<li class="claim verdict-{_slug(c.verdict)}" data-verdict="{_e(c.verdict)}">'
        f'<span class="verdict">{_e(c.verdict)}</span> <span class="claim-text">{_e(c.text)}</span>'
        f'<div class="statistic">{_e(c.statistic)}</div>'
        f'<div class="run-ids">runs: {_e(", ".join(c.run_ids) or "none")}</div></li>'
        for c in data.claims)
    return (f'<section id="claims"><h2>Claims checked against measured results</h2>'
            f'{f"<p>Test: {_e(TEST_NOTE)}.</p><ul>{items}</ul>" if items else "<p>This suite states no claims.</p>"}'
            '</section>')


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _failures(data: ReportData) -> str:
    if not data.failures:
        return '<section id="failures"><h2>Runs that did not finish</h2><p>None.</p></section>'
    rows = []
    for f in data.failures:
        lines = f.error.splitlines() or [""]
        error = (f"<pre>{_e(f.error)}</pre>" if len(lines) == 1 else
                 f"<details><summary>{_e(lines[-1])}</summary><pre>{_e(f.error)}</pre></details>")
        where = _axis(data, "dataset", f.dataset) if f.dataset in data.datasets else ""
        rows.append(f'<tr class="failure" {_axis(data, "method", f.method)} {where}><td>{_e(f.method)}</td>'
                    f"<td>{_e(f.dataset)}</td><td>{f.seed}</td><td>{_e(f.status)}</td><td><code>{_e(f.run_id)}</code>"
                    f'</td><td class="error">{error}</td></tr>')
    return ('<section id="failures"><h2>Runs that did not finish</h2><table><thead><tr><th>method</th>'
            "<th>dataset</th><th>seed</th><th>status</th><th>run</th><th>error</th></tr></thead>"
            f'<tbody>{"".join(rows)}</tbody></table></section>')


def _plots(plots: dict[str, bytes]) -> str:
    if not plots:
        return ""
    figures = "".join(
        f'<figure class="plot"><img alt="{_e(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        f"<figcaption>{_e(name)}</figcaption></figure>" for name, png in plots.items())
    return f'<section id="plots"><h2>Plots</h2>{figures}</section>'
