"""A report's rank statistics: which methods and datasets enter, when the comparison over datasets is shown, and
what each format (Markdown with its critical-difference diagram, LaTeX, HTML, the site's index) says."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from harness.reporting.html import render_html
from harness.reporting.latex import render_latex
from harness.reporting.load import load_report
from harness.reporting.markdown import render_markdown
from harness.reporting.model import Cell, MetricInfo
from harness.reporting.rank_report import rank_report
from harness.reporting.rank_tests import critical_difference
from harness.reporting.render import write_report
from harness.reporting.site_model import build_site
from harness.stats import summarize
from tests.conftest import REPO
from tests.reporting.fixed_store import write_fixed_store
from tests.reporting.latex_build import assert_latex_compiles

ERROR = MetricInfo("error", False, "quality")
FOUR = ("d1", "d2", "d3", "d4")


def _data(values: dict[tuple[str, str], list[float]], info: MetricInfo = ERROR):
    """A report model stand-in: (method, dataset) -> the main metric's value per seed."""
    cells = {}
    for (method, dataset), per_seed in values.items():
        seeds = tuple(range(len(per_seed)))
        cells[(method, dataset, info.name)] = Cell(method, dataset, info.name, summarize(per_seed), seeds,
                                                   tuple(per_seed), tuple(f"{method}-{dataset}-{s}" for s in seeds))
    return SimpleNamespace(main_metric=info.name, metrics={info.name: info},
                           methods=tuple(dict.fromkeys(m for m, _ in values)),
                           datasets=tuple(dict.fromkeys(d for _, d in values)),
                           cell=lambda m, d, k: cells.get((m, d, k)))


def _three_methods(datasets: tuple[str, ...] = FOUR) -> dict[tuple[str, str], list[float]]:
    rng = np.random.default_rng(0)
    return {(m, d): list(centre + i + rng.normal(0, 0.3, 4)) for m, centre in (("low", 1), ("mid", 5), ("high", 9))
            for i, d in enumerate(datasets)}


@pytest.fixture
def compared():
    return rank_report(_data(_three_methods()))


def test_three_methods_on_four_datasets_are_compared_as_scipy_compares_their_cell_means(compared):
    means = np.array([[np.mean(v) for (m, d), v in _three_methods().items() if d == dataset] for dataset in FOUR])
    expected = stats.friedmanchisquare(*means.T)
    assert compared.datasets == FOUR and compared.methods == ("low", "mid", "high")
    assert compared.comparison.friedman.statistic == pytest.approx(expected.statistic)
    assert compared.comparison.friedman.p_value == pytest.approx(expected.pvalue)
    assert compared.comparison.cd == pytest.approx(critical_difference(3, 4))
    assert compared.comparison.friedman.mean_ranks == (1.0, 2.0, 3.0)  # lower error is better
    assert compared.uncertainty.leader == "low" and compared.not_compared == ""


def test_a_method_without_a_cell_on_every_dataset_is_left_out_and_named(with_ranks):
    values = _three_methods()
    values.update({("partial", d): [0.0, 0.1] for d in FOUR[:3]})
    found = rank_report(_data(values))
    assert found.left_out == ("partial",) and "partial" not in found.methods
    assert "Left out, without a measured cell on every dataset: partial." in render_markdown(with_ranks(found))


def test_fewer_than_four_datasets_say_why_there_is_no_comparison():
    found = rank_report(_data(_three_methods(FOUR[:3])))
    assert found.comparison is None
    assert found.not_compared.endswith("here 3 methods on 3 datasets")
    assert found.uncertainty.methods[0].method == "low"


def test_two_methods_are_ranked_but_not_compared_by_friedman():
    found = rank_report(_data({k: v for k, v in _three_methods().items() if k[0] != "high"}))
    assert found.comparison is None and "at least 3 methods" in found.not_compared


def test_one_dataset_shows_the_ranks_over_seeds_alone():
    found = rank_report(_data(_three_methods(("only",))))
    assert found.comparison is None and found.not_compared.startswith("one dataset")
    assert [len(row.by_dataset) for row in found.uncertainty.methods] == [1, 1, 1]


def test_a_figure_without_direction_is_never_ranked():
    assert rank_report(_data(_three_methods(), MetricInfo("error", None, "hardware"))) is None


@pytest.fixture
def with_ranks(tmp_path, monkeypatch):
    """The fixed store's report carrying the given ranks: the renderers read the rank section off `data.ranks`."""
    monkeypatch.setattr("harness.reporting.build.git_state", lambda: ("fedcba9876543210", False))
    suite, store = write_fixed_store(tmp_path)
    data = load_report(suite, store, root=tmp_path)
    return lambda ranks: dataclasses.replace(data, ranks=ranks)


def test_the_markdown_report_shows_the_ranks_the_tests_and_the_diagram_png_beside_it(compared, with_ranks, tmp_path):
    data = with_ranks(compared)
    text = render_markdown(data)
    assert "## Ranks with their uncertainty, and the methods compared over datasets" in text
    assert "| low | 1 \\[1, 1\\] | 1 |" in text
    assert "Friedman test over 4 datasets (the blocks) and 3 methods" in text
    assert "with 4 datasets the smallest p a pair can reach is 0.125, so none can" in text
    assert "![critical-difference diagram of error](cd_error.png)" in text
    written = write_report(data, tmp_path / "out", ("md", "png"))
    assert tmp_path / "out" / "cd_error.png" in written


def test_the_latex_report_gives_the_ranks_a_short_table_that_compiles(compared, with_ranks, tmp_path):
    tex = render_latex(with_ranks(compared))
    assert r"\label{tab:fixed-ranks}" in tex and r"$\chi$$^2$" in tex and r"low & 1 {[}1, 1{]} & 1 \\" in tex
    assert_latex_compiles(tex, tmp_path)


def test_the_leaderboard_page_and_the_site_index_show_rank_intervals_and_p_best(compared, with_ranks):
    data = with_ranks(compared)
    page = render_html(data, {})
    assert '<section id="ranks">' in page
    assert '<tr class="rank-row" data-method="low">' in page and '<td class="cell p-best">1</td>' in page
    summary = build_site([data]).suites[0]
    assert summary.ranks is not None and summary.ranks.leader == "low"
    assert summary.ranks.rows[0] == ("low", ("1 [1, 1]", "1", "1 [1, 1]", "1 [1, 1]", "1 [1, 1]", "1 [1, 1]"))


@pytest.mark.slow  # loads three committed suites from their exports: about 20 s on 2 cores
@pytest.mark.parametrize(("suite", "methods", "datasets"),
                         [("defer_topk", 22, 5), ("gad_apf", 13, 4), ("visual_puzzles", 3, 12)])
def test_the_committed_suites_the_issue_names_get_a_critical_difference_diagram(suite, methods, datasets):
    data = load_report(REPO / "suites" / f"{suite}.yaml", REPO / "none.sqlite",
                       runs_file=REPO / "reports" / suite / "runs.csv")
    assert data.ranks is not None and data.ranks.comparison is not None
    assert (len(data.ranks.methods), len(data.ranks.datasets)) == (methods, datasets)
    assert f"![critical-difference diagram of {data.main_metric}]" in render_markdown(data).replace("\\_", "_")
