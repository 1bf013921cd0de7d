"""The HTML leaderboard in a real headless Chromium: it loads offline, sorts, filters, and runs no injected script.

Uses Debian's `chromium` driven by the `playwright` package (never `playwright install`,
which downloads browsers). Skips with the reason when either is absent. A screenshot
of the page is saved to test-artifacts/ (gitignored).
"""
from __future__ import annotations

import dataclasses
import io
import math
from pathlib import Path

import pytest

from harness.reporting.html import render_html
from tests.conftest import REPO
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# If escaping failed, this error text would load "x" and run the handler; it must stay text.
EVIL_ERROR = 'ValueError: <img src=x onerror="window.__pwned=2"> and "quotes"'

pytestmark = [pytest.mark.browser, pytest.mark.timeout(60)]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium with a fresh, empty profile for the module."""
    if not CHROMIUM.is_file():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            tmp_path_factory.mktemp("chromium-profile"), executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield context
        context.close()


@pytest.fixture
def page_file(toy_report, tmp_path) -> Path:
    """The toy report's page with a real plot and a hostile error text, written to a file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(3, 2))
    axes.bar(["a", "b"], [1.0, 2.0])
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)
    plt.close(figure)
    failures = (dataclasses.replace(toy_report.failures[0], error=EVIL_ERROR),) + toy_report.failures[1:]
    path = tmp_path / "leaderboard.html"
    path.write_text(render_html(dataclasses.replace(toy_report, failures=failures), {"bars": buffer.getvalue()}),
                    encoding="utf-8")
    return path


def recorded(page) -> dict[str, list[str]]:
    """What `page` does from now on: every console error, request and dialog (dismissed)."""
    events: dict[str, list[str]] = {"errors": [], "requests": [], "dialogs": []}
    page.on("console", lambda m: m.type == "error" and events["errors"].append(m.text))
    page.on("pageerror", lambda e: events["errors"].append(str(e)))
    page.on("request", lambda r: events["requests"].append(r.url))
    page.on("dialog", lambda d: (events["dialogs"].append(d.message), d.dismiss()))
    return events


@pytest.fixture
def opened(browser, page_file):
    """The page opened from its file:// URL, with every console error, request and dialog recorded."""
    page = browser.new_page()
    events = recorded(page)
    page.goto(page_file.as_uri(), wait_until="load")
    yield page, events
    page.close()


def _column(page, table: str, col: int) -> list[tuple[str, float]]:
    """(method, value) per measured row of `table`, in the order shown."""
    return page.eval_on_selector_all(
        f"{table} tbody.measured-rows tr",
        f"rows => rows.map(r => [r.getAttribute('data-method'), "
        f"parseFloat(r.querySelector('td[data-col=\"{col}\"]').getAttribute('data-value'))])")


def _best_first(rows: list[tuple[str, float]], higher: bool) -> list[str]:
    finite = sorted((r for r in rows if not math.isnan(r[1])), key=lambda r: -r[1] if higher else r[1])
    return [m for m, _ in finite] + [m for m, v in rows if math.isnan(v)]


def test_page_loads_offline_without_console_errors(opened, page_file):
    page, events = opened
    assert events["errors"] == []
    assert all(url == page_file.as_uri() or url.startswith("data:") for url in events["requests"]), events["requests"]
    assert page.eval_on_selector("#plots img", "img => img.complete && img.naturalWidth > 0")
    artifacts = REPO / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=str(artifacts / "html_leaderboard.png"), full_page=True)


def test_injected_markup_does_not_run_and_reads_as_text(opened):
    page, events = opened
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert events["dialogs"] == []
    assert page.inner_text("#metric-0 tbody.measured-rows tr:nth-child(2) th") == EVIL_METHOD
    assert page.inner_text('#metric-0 th[data-col="1"]') == EVIL_DATASET
    assert page.inner_text("#failures td.error >> nth=0") == EVIL_ERROR
    assert page.eval_on_selector_all("#failures img, #leaderboards script", "nodes => nodes.length") == 0


def test_clicking_a_column_header_sorts_rows_best_first_then_reverses(opened):
    page, _ = opened
    before = _column(page, "#metric-0", 0)
    page.click('#metric-0 th[data-col="0"]')
    descending = [m for m, _ in _column(page, "#metric-0", 0)]
    assert descending == _best_first(before, higher=True) and descending != [m for m, _ in before]
    page.click('#metric-0 th[data-col="0"]')
    ascending = [m for m, _ in _column(page, "#metric-0", 0)]
    assert ascending == _best_first(before, higher=False)
    assert page.get_attribute('#metric-0 th[data-col="0"]', "aria-sort") == "ascending"


def test_dataset_filter_hides_the_other_dataset_columns(opened):
    page, _ = opened
    page.select_option("#filter-dataset", "1")
    assert page.locator('#leaderboards [data-dataset="0"]').evaluate_all("els => els.every(e => e.hidden)")
    assert page.locator('#leaderboards [data-dataset="1"]').evaluate_all("els => els.every(e => !e.hidden)")
    assert not page.is_visible('#metric-0 th[data-col="0"]') and page.is_visible('#metric-0 th[data-col="1"]')
    page.select_option("#filter-dataset", "")
    assert page.is_visible('#metric-0 th[data-col="0"]')


def test_method_filter_hides_rows_whose_name_does_not_match(opened):
    page, _ = opened
    page.fill("#filter-method", "EVIL")
    shown = page.eval_on_selector_all("#metric-0 tbody tr",
                                      "rows => rows.filter(r => !r.hidden).map(r => r.dataset.method)")
    assert shown == [EVIL_METHOD]
    page.fill("#filter-method", "thr")
    shown = page.eval_on_selector_all("#metric-0 tr.cited, #metric-0 tr.measured",
                                      "rows => rows.filter(r => !r.hidden).map(r => r.className)")
    assert sorted(shown) == ["cited", "measured"]


def test_metric_filter_shows_only_the_chosen_table(opened):
    page, _ = opened
    page.select_option("#filter-metric", "1")
    visible = page.eval_on_selector_all("section.leaderboard", "s => s.filter(x => !x.hidden).map(x => x.id)")
    assert visible == ["metric-1"]
