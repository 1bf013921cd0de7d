"""A method that declares a repeated run may differ (`Method.determinism = Determinism.NO`) is named in every
report's provenance line; a suite of deterministic methods says nothing of it."""
from __future__ import annotations

from harness.contracts import Determinism
from harness.registry import methods
from harness.reporting.latex import render_latex
from harness.reporting.load import load_report
from harness.reporting.markdown import render_markdown


def test_the_provenance_line_names_the_methods_that_declare_themselves_nondeterministic(toy_store, monkeypatch):
    assert "may differ when repeated" not in load_report(*toy_store).provenance.line()
    monkeypatch.setattr(methods.get("toy.fail"), "determinism", Determinism.NO)
    report = load_report(*toy_store)
    assert report.provenance.nondeterministic == ("broken",)
    line = "may differ when repeated under one run key: broken"
    assert line in report.provenance.line()
    assert line in render_markdown(report) and line in render_latex(report)
