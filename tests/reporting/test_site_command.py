"""`harness site`: the pages it writes, how they link, what they refuse to load, and its user errors (exit 3).

Pages are parsed with the report tests' HTMLParser tree, so assertions see what a browser builds.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from harness.cli import main
from harness.errors import USER_ERROR_EXIT
from harness.reporting.html import asset, content_policy
from tests.conftest import REPO
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD, TOY_PLUGIN
from tests.reporting.site_suites import SHOWN, make_site_store
from tests.reporting.test_html import parse

PAGES = {"index.html", "suites/toy-report.html", "suites/toy-second.html",
         "methods/toy.threshold.html", "methods/toy.vote.html", "methods/toy.fail.html",
         "explain/toy-report.html", "explain/toy-second.html"}


@pytest.fixture(scope="module")
def site_store(tmp_path_factory) -> tuple[Path, Path]:
    return make_site_store(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def built(site_store, tmp_path_factory) -> Path:
    """The toy site, built from the store by the command."""
    suites, store = site_store
    out = tmp_path_factory.mktemp("built")
    assert main(["site", "--store", str(store), "--suites-dir", str(suites), "--out", str(out),
                 "--plugin", TOY_PLUGIN]) == 0
    return out


def _pages(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.html")}


def test_the_site_has_an_index_a_page_per_suite_and_a_page_per_method(built):
    assert set(_pages(built)) == PAGES
    index = parse((built / "index.html").read_text(encoding="utf-8"))
    assert [row.attrs["data-suite"] for row in index.one("table", id="suite-table").all("tr", cls="suite-row")] \
        == list(SHOWN)
    assert {a.attrs["href"] for a in index.one("section", id="methods").all("a", cls="method-page")} \
        == {p for p in PAGES if p.startswith("methods/")}


def test_every_link_is_relative_and_reaches_a_page_of_the_site(built):
    pages = _pages(built)
    for name, text in pages.items():
        for node in parse(text).all():
            assert "src" not in node.attrs or node.attrs["src"].startswith("data:"), (name, node.attrs)
            if "href" in node.attrs:
                href = node.attrs["href"]
                assert not re.match(r"[a-z]+:|/", href), f"{name} links outside the site: {href}"
                path, _, anchor = unquote(href).partition("#")
                target = ((built / name).parent / path).resolve()
                assert target.is_file(), f"{name}: broken link {href}"
                if anchor:
                    page = pages[target.relative_to(built.resolve()).as_posix()]
                    assert parse(page).all(id=anchor), f"{name}: {href} names no element of its page"


def test_every_page_forbids_the_network_and_runs_only_its_own_script(built):
    for name, text in _pages(built).items():
        doc = parse(text)
        policy = doc.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
        assert "default-src 'none'" in policy and "base-uri 'none'" in policy, name
        assert len(doc.all("script")) == 1 and "http://" not in text and "https://" not in text, name
        assert not [n for n in doc.all() if any(a.startswith("on") for a in n.attrs)], f"{name} has an event handler"
    index = parse(_pages(built)["index.html"])
    style, script = index.one("style").text(), index.one("script").text()
    assert style == asset("leaderboard.css") + asset("site.css") and script == asset("leaderboard.js")
    assert index.one("meta", http_equiv="Content-Security-Policy").attrs["content"] == content_policy(style, script)


def test_hostile_names_are_text_on_every_page(built):
    pages = _pages(built)
    for text in pages.values():
        assert EVIL_METHOD not in text and EVIL_DATASET not in text
    index = parse(pages["index.html"])
    headline = index.one("section", cls="suite", data_suite="toy-report").one("table", cls="headline")
    assert EVIL_METHOD in [a.text() for a in headline.all("a", cls="method-link")]
    assert EVIL_DATASET in [th.text() for th in headline.all("th", cls="sortable")]
    method = parse(pages["methods/toy.threshold.html"])
    assert EVIL_METHOD in [row.one("th").text() for row in method.all("tr", cls="ours")]


def test_a_suite_page_is_its_leaderboard_linked_back_to_the_index(built):
    page = parse(_pages(built)["suites/toy-second.html"])
    assert page.one("a", id="to-index").attrs["href"] == "../index.html"
    assert {a.text(): a.attrs["href"] for a in page.all("a", cls="method-page")} == {
        "toy.threshold": "../methods/toy.threshold.html", "toy.vote": "../methods/toy.vote.html"}
    rows = page.one("section", cls="leaderboard", data_metric="accuracy").all("a", cls="method-link")
    assert {a.text(): a.attrs["href"] for a in rows} == {
        "cut[t=0.2]": "../methods/toy.threshold.html", "cut[t=0.4]": "../methods/toy.threshold.html",
        "vote": "../methods/toy.vote.html"}
    assert not page.all("img")  # plots are embedded only with --plots


def test_plots_are_embedded_when_asked(site_store, tmp_path):
    suites, store = site_store
    assert main(["site", "toy-second", "--store", str(store), "--suites-dir", str(suites), "--out", str(tmp_path),
                 "--plots", "--plugin", TOY_PLUGIN]) == 0
    images = parse((tmp_path / "suites" / "toy-second.html").read_text(encoding="utf-8")).all("img")
    assert images and all(img.attrs["src"].startswith("data:image/png;base64,") for img in images)


def test_a_missing_store_is_a_user_error(tmp_path, capsys):
    code = main(["site", "--store", str(tmp_path / "none.sqlite"), "--out", str(tmp_path / "out")])
    assert code == USER_ERROR_EXIT and "none.sqlite does not exist" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_unknown_suite_is_a_user_error_naming_the_close_ones(tmp_path, capsys):
    code = main(["site", "quickstrat", "--suites-dir", str(REPO / "suites"), "--reports-dir", str(REPO / "reports"),
                 "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == USER_ERROR_EXIT and "unknown suite 'quickstrat'" in err and "'quickstart'" in err


def test_a_suite_without_an_export_is_a_user_error(tmp_path, capsys):
    code = main(["site", "quickstart", "--suites-dir", str(REPO / "suites"), "--reports-dir", str(tmp_path),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == USER_ERROR_EXIT and "suite 'quickstart' has no export" in err and "--store" in err


@pytest.mark.slow  # loads every committed suite's families: about 10 s on 2 cores
def test_the_committed_site_shows_every_committed_suite(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)  # the defaults, suites/ and reports/, are the repository's
    assert main(["site", "--out", str(tmp_path)]) == 0
    committed = sorted(p.parent.name for p in (REPO / "reports").glob("*/runs.csv"))
    index = parse((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert sorted(r.attrs["data-suite"] for r in index.all("tr", cls="suite-row")) == committed
    assert sorted(p.stem for p in (tmp_path / "suites").glob("*.html")) == committed
    assert f"site of {len(committed)} suites" in capsys.readouterr().out
