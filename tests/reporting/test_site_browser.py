"""The leaderboard site in a real headless Chromium, opened from file://: the index lists every committed
suite, links go index -> suite -> method -> back, the index table sorts, and hostile names run nothing.

Uses Debian's `chromium` through the `playwright` package, as tests/reporting/test_html_browser.py does
(its `browser` fixture), skipping with the reason when either is absent. Screenshots go to test-artifacts/.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from harness.cli import main
from tests.conftest import REPO
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD
from tests.reporting.site_suites import build_toy_site
from tests.reporting.test_html_browser import browser, recorded  # noqa: F401 - browser is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="module")
def committed_site(tmp_path_factory) -> Path:
    """The site of every committed suite, from the committed exports, as `regenerate.sh --site` builds it
    (without plots)."""
    out = tmp_path_factory.mktemp("committed_site")
    assert main(["site", "--suites-dir", str(REPO / "suites"), "--reports-dir", str(REPO / "reports"),
                 "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory) -> Path:
    """The site of the toy suites, whose method and dataset names carry markup."""
    return build_toy_site(tmp_path_factory.mktemp("toy"))


@pytest.fixture
def tab(browser):  # noqa: F811 - the imported fixture
    """A new page recording console errors, requests and dialogs."""
    page = browser.new_page()
    yield page, recorded(page)
    page.close()


def _screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _suite_rows(page) -> list[tuple[str, float]]:
    """(suite, runs) per row of the index's suite table, in the order shown."""
    return page.eval_on_selector_all(
        "#suite-table tbody tr", "rows => rows.map(r => [r.dataset.suite, "
        "parseFloat(r.querySelector('td[data-col=\"1\"]').dataset.value)])")


@pytest.mark.slow  # builds the committed site: about 10 s on 2 cores
def test_the_index_lists_every_committed_suite_offline(committed_site, tab):
    page, events = tab
    page.goto((committed_site / "index.html").as_uri(), wait_until="load")
    committed = sorted(p.parent.name for p in (REPO / "reports").glob("*/runs.csv"))
    assert sorted(suite for suite, _ in _suite_rows(page)) == committed
    assert page.locator("section.suite table.headline").count() == len(committed)
    assert events["errors"] == [] and all(url.startswith(committed_site.as_uri()) for url in events["requests"])
    _screenshot(page, "site_index.png")


@pytest.mark.slow
def test_links_lead_from_the_index_to_a_suite_to_a_method_and_back(committed_site, tab):
    page, events = tab
    page.goto((committed_site / "index.html").as_uri(), wait_until="load")
    page.click('#suite-table tr[data-suite="gad_apf"] a.suite-link')
    assert page.url.endswith("/suites/gad_apf.html") and page.inner_text("#title") == "gad_apf"
    page.click('#metric-0 tr[data-method="apf"] a.method-link')
    assert page.url.endswith("/methods/graph_anomaly.apf.html") and page.inner_text("#title") == "graph_anomaly.apf"
    shown = page.eval_on_selector_all("section.appearance", "s => s.map(x => x.dataset.suite)")
    assert shown == ["gad_apf", "gad_apf_ablation"]
    _screenshot(page, "site_method.png")
    page.click('section.appearance[data-suite="gad_apf_ablation"] a.suite-link')
    assert page.url.endswith("/suites/gad_apf_ablation.html")
    page.go_back()
    assert page.url.endswith("/methods/graph_anomaly.apf.html")
    page.click("#to-index")
    assert page.url.endswith("/index.html") and page.inner_text("#title") == "Leaderboards"
    assert events["errors"] == []


@pytest.mark.slow
def test_clicking_a_header_of_the_index_table_sorts_its_suites(committed_site, tab):
    page, _ = tab
    page.goto((committed_site / "index.html").as_uri(), wait_until="load")
    before = _suite_rows(page)
    page.click('#suite-table th[data-col="1"]')
    assert [runs for _, runs in _suite_rows(page)] == sorted((runs for _, runs in before), reverse=True)
    assert page.get_attribute('#suite-table th[data-col="1"]', "aria-sort") == "descending"
    page.click('#suite-table th[data-col="1"]')
    assert [runs for _, runs in _suite_rows(page)] == sorted(runs for _, runs in before)
    page.click('#suite-table th[data-col="0"]')  # last run: newest first, suites with no date last
    dates = page.eval_on_selector_all("#suite-table tbody tr td.last-run", "cells => cells.map(c => c.dataset.value)")
    finite = [float(d) for d in dates if d != "NaN"]
    assert finite == sorted(finite, reverse=True) and all(d == "NaN" for d in dates[len(finite):])
    assert not all(math.isnan(float(d)) for d in dates)


def test_hostile_names_run_no_script_on_any_page(toy_site, tab):
    page, events = tab
    page.goto((toy_site / "index.html").as_uri(), wait_until="load")
    headline = 'section.suite[data-suite="toy-report"] table.headline'
    texts = "nodes => nodes.map(n => n.textContent)"
    assert EVIL_METHOD in page.eval_on_selector_all(f"{headline} a.method-link", texts)
    assert EVIL_DATASET in page.eval_on_selector_all(f"{headline} th.sortable", texts)
    _screenshot(page, "site_toy_index.png")
    page.click(f'{headline} a.method-link >> text="{EVIL_METHOD}"')
    assert page.url.endswith("/methods/toy.threshold.html")
    assert EVIL_METHOD in page.eval_on_selector_all("tr.ours th", texts)
    page.click('section.appearance[data-suite="toy-report"] a.suite-link')
    assert page.inner_text('#metric-0 tr.measured a.method-link:has-text("evil")') == EVIL_METHOD
    for _ in range(2):
        assert page.evaluate("typeof window.__pwned") == "undefined"
        page.go_back()
    assert events["dialogs"] == [] and events["errors"] == []
    assert all(url.startswith(toy_site.as_uri()) for url in events["requests"])


def test_a_leaderboard_cell_opens_the_explanation_of_its_runs(toy_site, tab):
    page, events = tab
    page.goto((toy_site / "suites" / "toy-report.html").as_uri(), wait_until="load")
    page.click('#metric-0 tr[data-method="thr"] td.measured[data-dataset="1"] a.explain-link')
    block = "section.explain:target"
    assert page.url.endswith("/explain/toy-report.html#cell-0-1-0")
    assert page.get_attribute(block, "data-dataset-name") == EVIL_DATASET
    assert page.inner_text(f"{block} pre.explanation").startswith(f"suite toy-report: thr on {EVIL_DATASET}")
    assert page.inner_text(f"{block} pre.command").startswith("$ harness explain ")
    _screenshot(page, "site_explain.png")
    page.click("#to-leaderboard")
    assert page.url.endswith("/suites/toy-report.html") and page.evaluate("typeof window.__pwned") == "undefined"
    assert events["dialogs"] == [] and events["errors"] == []
