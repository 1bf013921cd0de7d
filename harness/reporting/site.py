"""A static leaderboard site: an index of every suite, each suite's leaderboard page, one page per method.

Layout of the output folder (links are relative, so it opens from file:// or any static host):
`index.html`, `suites/<suite>.html` (the leaderboard `harness report` writes, with a link back to the
index and its methods linked, each measured cell linked to its block on `explain/<suite>.html`: the runs
behind the cell and the arithmetic to it, as `harness explain` prints them), `methods/<method>.html`.
Every page inlines the one style sheet and the
leaderboard's sort script under the same Content-Security-Policy as the leaderboard (`html.content_policy`):
nothing loads from the network, and autoescaping keeps every name from a suite or a run as text.

Stable hooks beyond the leaderboard's: the index has `table#suite-table` (`tr.suite-row[data-suite]`,
sortable `last run`, `runs`, `claims supported`), a `section.suite[data-suite]` per suite with its headline
`table.headline` (`a.method-link` row labels), `details.ranks` (the headline metric's `table.rank-table`:
`tr.rank-row[data-method]` with `td.mean-rank` and `td.p-best`) and `li.claim[data-verdict]`, and `#methods`
(`a.method-page`).
A method page has `a#to-index` and a `section.appearance[data-suite]` per suite (`a.suite-link`,
`tr.ours`, `tr.suite-best`, `table.references`).
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from markupsafe import Markup

from harness import __version__
from harness.reporting.explain_page import ExplainSource, explain_page
from harness.reporting.html import SiteLinks, asset, content_policy, environment, render_html
from harness.reporting.render import plot_pngs
from harness.reporting.site_model import INDEX_PAGE, Site


def write_site(site: Site, out: Path, footer: str, plots: bool = False,
               explain_sources: Mapping[str, ExplainSource] | None = None) -> list[Path]:
    """Write every page of `site` into `out`; `plots` embeds each suite's plots in its page (slower: matplotlib).

    `explain_sources` say where each suite's runs were read from, as the `harness explain` commands on its explain
    page name it (`explain_page.explain_source`); a suite without one is named by its file's name alone.
    """
    written = [_write(out / INDEX_PAGE, _render("site_index.html.j2", footer, site=site))]
    for method in site.methods:
        written.append(_write(out / method.page, _render("site_method.html.j2", footer, method=method)))
    for summary in site.suites:
        data = site.reports[summary.name]
        pages = {name: f"../{page}" for name, page in site.method_pages(summary.name).items()}
        unnamed = ExplainSource(shlex.quote(data.provenance.suite_file), None)
        explained = explain_page(data, (explain_sources or {}).get(summary.name, unnamed))
        links = SiteLinks(f"../{INDEX_PAGE}", pages, site.row_methods[summary.name], explained.hrefs())
        written.append(_write(out / summary.page, render_html(data, plot_pngs(data) if plots else {}, links)))
        written.append(_write(out / explained.page, _render("site_explain.html.j2", footer, page=explained)))
    return written


def site_footer(source: str) -> str:
    """What every page but the suites' own says it was built from (a suite's page has its own provenance)."""
    return f"built by harness {__version__} (harness site) from {source}"


def _render(template: str, footer: str, **context: object) -> str:
    css, script = asset("leaderboard.css") + asset("site.css"), asset("leaderboard.js")
    return environment().get_template(template).render(
        policy=content_policy(css, script), css=Markup(css), script=Markup(script), footer=footer, **context)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
