"""The site's explain pages: every measured leaderboard cell links to a block of its suite's explain page that holds
what `harness explain` prints for that cell, beside the command that prints it.

Built by `harness site` from the two toy suites of `site_suites` (hostile names, a method that always fails, a grid).
"""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from harness.cli import main
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD
from tests.reporting.site_suites import SHOWN, build_toy_site
from tests.reporting.test_html import Node, parse


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_toy_site(tmp_path_factory.mktemp("toy"))


def _page(out: Path, name: str) -> Node:
    return parse((out / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("suite", SHOWN)
def test_every_measured_cell_links_to_the_block_of_its_own_cell(built, suite):
    leaderboard = _page(built, f"suites/{suite}.html")
    blocks = {b.attrs["id"]: b for b in _page(built, f"explain/{suite}.html").all("section", cls="explain")}
    datasets = [o.text() for o in leaderboard.one("select", id="filter-dataset").all("option")][1:]
    linked = 0
    for board in leaderboard.all("section", cls="leaderboard"):
        for row in board.one("tbody", cls="measured-rows").all("tr", cls="measured"):
            for cell in row.all("td", cls="measured"):
                page, _, anchor = cell.one("a", cls="explain-link").attrs["href"].partition("#")
                block = blocks[anchor]
                assert page == f"../explain/{suite}.html"
                assert (block.attrs["data-method"], block.attrs["data-dataset-name"], block.attrs["data-metric"]) == \
                    (row.attrs["data-method"], datasets[int(cell.attrs["data-dataset"])], board.attrs["data-metric"])
                linked += 1
    assert linked == len(blocks) > 0  # one block per measured cell, no more
    assert not leaderboard.all("td", cls="missing") or all(
        not td.all("a") for td in leaderboard.all("td", cls="missing"))


def test_each_block_holds_what_its_command_prints(built, capsys):
    page = _page(built, "explain/toy-report.html")
    blocks = [b for b in page.all("section", cls="explain") if b.attrs["data-metric"] == "accuracy"]
    assert {b.attrs["data-method"] for b in blocks} >= {"thr", EVIL_METHOD, "broken"}
    for block in blocks:
        command = block.one("pre", cls="command").text().removeprefix("$ ")
        assert command.startswith("harness explain ")
        assert main(shlex.split(command)[1:]) == 0
        assert block.one("pre", cls="explanation").text() == capsys.readouterr().out


def test_a_cell_whose_runs_all_failed_lists_them_and_averages_nothing(built):
    page = _page(built, "explain/toy-report.html")
    [block] = [b for b in page.all("section", cls="explain")
               if (b.attrs["data-method"], b.attrs["data-dataset-name"], b.attrs["data-metric"])
               == ("broken", EVIL_DATASET, "accuracy")]
    text = block.one("pre", cls="explanation").text()
    assert "3 runs (0 ok, 3 failed)" in text and "no finite value: no mean" in text
    assert text.count("failed: counted, not averaged") == 3 and "ValueError: this method always fails" in text
