"""The HTML leaderboard without a browser: escaping, no network references, honest cells, marked citations.

The page is parsed with the standard library's HTMLParser, so assertions see what a
browser would build (attribute values unescaped, tags as tags), not raw substrings.
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest

from harness.reporting.html import render_html
from tests.reporting.conftest import EVIL_DATASET, EVIL_METHOD, NAN_METHOD, SINGLE_SEED_METHOD

EVIL_ERROR = 'ValueError: <script>alert(1)</script>" broke out'
VOID = {"meta", "input", "img", "br", "hr", "link"}
# A 1x1 transparent PNG; the renderer must embed it byte for byte.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list["Node | str"] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list["Node"]:
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if ((tag is None or child.tag == tag) and (cls is None or cls in child.classes)
                        and all(child.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())):
                    found.append(child)
                found += child.all(tag, cls, **attrs)
        return found

    def one(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> "Node":
        found = self.all(tag, cls, **attrs)
        assert len(found) == 1, f"expected one <{tag} class={cls} {attrs}>, found {len(found)}"
        return found[0]


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):  # noqa: ANN001
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):  # noqa: ANN001
        self.stack[-1].children.append(data)


def parse(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root


@pytest.fixture
def report(toy_report):
    """The toy report with a failure whose error text carries markup too."""
    failures = (dataclasses.replace(toy_report.failures[0], error=EVIL_ERROR),) + toy_report.failures[1:]
    return dataclasses.replace(toy_report, failures=failures)


@pytest.fixture
def page(report) -> str:
    return render_html(report, {"bars_accuracy": PNG})


def _row(doc: Node, metric: str, method: str) -> Node:
    return doc.one("section", cls="leaderboard", data_metric=metric).one("tr", cls="measured", data_method=method)


def test_method_dataset_and_error_markup_is_escaped_everywhere(page, report):
    doc = parse(page)
    assert len(doc.all("script")) == 1 and not doc.all("b") and not doc.all("i")
    assert {n.tag for n in doc.all()} <= {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "em", "section", "dl", "dt", "dd",
        "span", "code", "ul", "li", "nav", "label", "select", "option", "input", "main", "table", "thead", "tbody",
        "tr", "th", "td", "strong", "small", "div", "pre", "details", "summary", "figure", "img", "figcaption",
        "footer", "script"}
    # Attribute values survive the quote intact: the browser reads back exactly the name.
    assert _row(doc, "accuracy", EVIL_METHOD).one("th").text() == EVIL_METHOD
    assert any(o.text() == EVIL_DATASET for o in doc.one("select", id="filter-dataset").all("option"))
    assert EVIL_DATASET in doc.one("section", cls="leaderboard", data_metric="accuracy").one("th", data_col="1").text()
    assert doc.one("section", id="failures").all("td", cls="error")[0].text() == EVIL_ERROR
    assert doc.one("p", id="description").text() == report.suite.description
    for raw in (EVIL_METHOD, EVIL_DATASET, EVIL_ERROR):
        assert raw not in page


def test_page_references_nothing_on_the_network(page):
    doc = parse(page)
    assert "http://" not in page and "https://" not in page
    for node in doc.all():
        for name in ("src", "href", "action", "srcset", "poster"):
            assert name not in node.attrs or node.attrs[name].startswith("data:"), (node.tag, node.attrs[name])
    policy = doc.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert "default-src 'none'" in policy and "img-src data:" in policy


def test_inline_script_is_the_only_one_the_policy_allows(page):
    doc = parse(page)
    script = doc.one("script").text()
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = doc.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert re.findall(r"script-src ([^;]+)", policy) == [f"'sha256-{digest}'"]


def test_plots_are_embedded_as_png_data_uris(page):
    image = parse(page).one("section", id="plots").one("img")
    assert image.attrs["alt"] == "bars_accuracy"
    assert base64.b64decode(image.attrs["src"].removeprefix("data:image/png;base64,")) == PNG


def test_single_seed_cell_shows_its_mean_and_n_without_an_interval(page, report):
    doc = parse(page)
    for index, dataset in enumerate(report.datasets):
        cell = report.cell(SINGLE_SEED_METHOD, dataset, "accuracy")
        assert cell.stats.n == 1
        text = _row(doc, "accuracy", SINGLE_SEED_METHOD).one("td", data_col=str(index)).text()
        assert text == f"{cell.stats.mean:.2f} (n=1)"


def test_cells_over_seeds_show_mean_interval_and_n(page, report):
    cell = report.cell("thr", "easy", "accuracy")
    text = _row(parse(page), "accuracy", "thr").one("td", data_col="0").text()
    assert text.startswith(f"{cell.stats.mean:.2f} ± {cell.stats.ci95:.2f}") and f"(n={cell.stats.n})" in text


def test_nan_cell_is_shown_literally_and_never_bold(page):
    for td in _row(parse(page), "accuracy", NAN_METHOD).all("td"):
        assert td.text() == "NaN" and td.attrs["data-value"] == "NaN"
        assert "best" not in td.classes and not td.all("strong")


def test_best_cell_per_column_is_bold_in_the_metric_direction(page, report):
    doc = parse(page)
    for metric, info in report.metrics.items():
        section = doc.one("section", cls="leaderboard", data_metric=metric)
        assert info.arrow in section.one("h2").text()
        for index in range(len(report.datasets)):
            cells = section.one("tbody", cls="measured-rows").all("td", data_col=str(index))
            values = [float(td.attrs["data-value"]) for td in cells]
            finite = [v for v in values if math.isfinite(v)]
            best = max(finite) if info.higher_is_better else min(finite)
            bold = [v for td, v in zip(cells, values, strict=True) if "best" in td.classes]
            assert bold and all(v == best for v in bold)
            assert all(td.all("strong") for td in cells if "best" in td.classes)


def test_quality_tables_come_before_hardware_tables(page, report):
    kinds = [report.metrics[s.attrs["data-metric"]].kind for s in parse(page).all("section", cls="leaderboard")]
    assert kinds == sorted(kinds, key=lambda k: k != "quality") and kinds[0] == "quality"


def test_cited_numbers_sit_in_separate_marked_rows_with_source_and_delta(page, report):
    (ref,) = report.references
    table = parse(page).one("section", cls="leaderboard", data_metric="accuracy")
    row = table.one("tbody", cls="cited-rows").one("tr", cls="cited", data_method=ref.method)
    assert "cited" in row.one("span", cls="tag").text()
    assert row.one("span", cls="source").text() == ref.source
    cell = row.one("td", data_col=str(report.datasets.index(ref.dataset)))
    assert "cited" in cell.classes and "measured" not in cell.classes
    assert cell.one("span", cls="delta").text().endswith(f"{ref.delta:+.2f}")
    assert not table.one("tbody", cls="measured-rows").all(cls="cited")


def test_each_measured_cell_lists_its_run_ids_on_hover(page, report):
    doc = parse(page)
    for method in report.methods:
        for index, dataset in enumerate(report.datasets):
            title = _row(doc, "accuracy", method).one("td", data_col=str(index)).attrs["title"]
            assert all(run in title for run in report.cell(method, dataset, "accuracy").run_ids)


def test_provenance_claims_and_failures_are_shown(page, report):
    doc = parse(page)
    assert all(sha in doc.one("span", id="git-shas").text() for sha in report.provenance.git_shas)
    assert [li.text() for li in doc.one("ul", id="hardware").all("li")] == list(report.provenance.hardware)
    assert doc.one("footer", id="footer").text() == report.provenance.line()
    (claim,) = report.claims
    item = doc.one("li", cls="claim")
    assert item.attrs["data-verdict"] == claim.verdict and item.one(cls="claim-text").text() == claim.text
    assert item.one(cls="statistic").text() == claim.statistic
    assert all(run in item.one(cls="run-ids").text() for run in claim.run_ids)
    assert len(doc.one("section", id="failures").all("tr", cls="failure")) == len(report.failures)


def test_filters_offer_every_dataset_and_metric_by_index(page, report):
    doc = parse(page)
    datasets = doc.one("select", id="filter-dataset").all("option")
    assert [(o.attrs["value"], o.text()) for o in datasets] == [("", "all")] + [
        (str(i), d) for i, d in enumerate(report.datasets)]
    metrics = [o.attrs["value"] for o in doc.one("select", id="filter-metric").all("option")]
    sections = [s.attrs["data-index"] for s in doc.all("section", cls="leaderboard")]
    assert metrics == [""] + sections
    assert doc.one("input", id="filter-method")
