"""Renderers on hostile names, n=1 cells, NaN values and failed runs; the LaTeX compiles."""
from __future__ import annotations

import re

import pytest

from harness.reporting.csv_table import cells_frame
from harness.reporting.html import render_html
from harness.reporting.latex import render_latex
from harness.reporting.load import load_report
from harness.reporting.layout import cited_text
from harness.reporting.markdown import render_markdown
from harness.reporting.model import CitedValue
from tests.reporting.fixed_store import EVIL_NAME, write_fixed_store
from tests.reporting.latex_build import assert_latex_compiles


@pytest.fixture
def evil_report(tmp_path):
    suite, store = write_fixed_store(tmp_path, evil=True)
    return load_report(suite, store, root=tmp_path)


def test_markdown_escapes_special_characters_in_method_names(evil_report):
    text = render_markdown(evil_report)
    assert "<script>" not in text
    assert "evil\\<script\\>" in text and "\\[a\\|b\\]" in text


def test_latex_escapes_special_characters_in_method_names(evil_report):
    text = render_latex(evil_report)
    assert EVIL_NAME not in text
    assert r"evil\textless{}script\textgreater{}" in text
    assert r"\& 50\% \$x\_1\$ \#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{} {[}a\textbar{}b{]}" in text


def _balanced(text: str) -> bool:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+)\}", text):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    depth = 0
    for char in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return not stack and depth == 0


def test_latex_environments_and_braces_are_balanced(evil_report):
    assert _balanced(render_latex(evil_report))


def test_latex_compiles_with_pdflatex(evil_report, tmp_path):
    assert_latex_compiles(render_latex(evil_report), tmp_path)


def test_n1_cell_shows_no_interval_and_failures_are_counted(evil_report):
    text = render_markdown(evil_report)
    assert "70.0 (n=1) (2 failed)" in text
    assert "70.0 ±" not in text


def test_nan_seed_is_shown_and_the_cell_is_not_ranked(evil_report):
    text = render_markdown(evil_report)
    assert "81.0 ± 12.7 (1 NaN)" in text
    assert "**81.0" not in text and "<ins>81.0" not in text
    frame = cells_frame(evil_report)
    nan_cell = frame[(frame.method == "thr[t=0.5]") & (frame.dataset == "hard_set") & (frame.metric == "accuracy")]
    assert nan_cell["n_nonfinite"].item() == 1 and nan_cell["rank"].isna().item()


def test_cited_values_are_marked_and_never_merged_with_measured(evil_report):
    frame = cells_frame(evil_report)
    cited = frame[frame.source == "cited"]
    assert list(cited["cited_from"]) == ["Doe et al. 2026, Table 2", "Doe et al. 2026, Table 1"]
    assert cited["run_ids"].isna().all()
    assert "*cited*" in render_markdown(evil_report) and r"$^\dagger$" in render_latex(evil_report)


def test_a_number_cited_on_a_dataset_not_run_here_is_shown_in_its_row_label(evil_report):
    assert "| *cited* thr on full\\_scale: 97.50 (Doe et al. 2026, Table 1) |  |  |" in render_markdown(evil_report)


def test_every_measured_cell_names_its_runs(evil_report):
    frame = cells_frame(evil_report)
    measured = frame[(frame.source == "measured") & (frame.n > 0)]
    cells = zip(measured.run_ids, measured.n, measured.n_nonfinite, strict=True)
    assert all(len(ids.split()) == n + nan for ids, n, nan in cells)


def test_a_reference_of_another_quantity_is_shown_without_a_difference(tmp_path):
    suite, store = write_fixed_store(tmp_path)
    text = suite.read_text().replace('source: "Doe et al. 2026, Table 2"}',
                                     'source: "Doe et al. 2026, Table 2", comparable: false}')
    suite.write_text(text)
    report = load_report(suite, store, root=tmp_path)
    noisy = next(r for r in report.references if r.method == "noisy")
    assert noisy.measured is not None and noisy.delta is None
    assert "| not like for like |" in render_markdown(report)
    assert cells_frame(report).query("source == 'cited' and method == 'noisy'")["delta"].isna().all()


def test_report_notes_are_escaped_and_printed_just_before_the_claims(tmp_path):
    suite, store = write_fixed_store(tmp_path)
    text = suite.read_text().replace('cell: "{mean:.1f} ± {ci95:.1f}"}',
                                     'cell: "{mean:.1f} ± {ci95:.1f}", notes: ["CPU <b>only</b>", "a|b"]}')
    suite.write_text(text)
    report = load_report(suite, store, root=tmp_path)
    markdown, page = render_markdown(report), render_html(report, {})
    assert "- CPU \\<b\\>only\\</b\\>\n- a\\|b\n" in markdown
    assert markdown.index("## Read the results with these notes") < markdown.index("## Claims checked")
    assert '<li class="note">CPU &lt;b&gt;only&lt;/b&gt;</li>' in page
    assert page.index('id="notes"') < page.index('id="claims"')
    (tmp_path / "plain").mkdir()
    without = load_report(*write_fixed_store(tmp_path / "plain"), root=tmp_path / "plain")
    assert "these notes" not in render_markdown(without) and 'id="notes"' not in render_html(without, {})


@pytest.mark.parametrize("spread, text", [({"std": 1.0}, "54.00 ± 1.00 (sd)"), ({"ci95": 1.0}, "54.00 ± 1.00 (95% CI)"),
                                          ({"range": (53.0, 55.0)}, "54.00 (range 53.00–55.00)"), ({}, "54.00")])
def test_a_cited_spread_says_what_it_is(spread, text):
    fields = {"std": None, **spread}
    assert cited_text(CitedValue("m", "d", "accuracy", 54.0, source="s", measured=None, **fields)) == text
