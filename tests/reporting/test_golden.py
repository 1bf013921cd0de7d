"""Golden tests: the Markdown and LaTeX reports of a fixed store, byte for byte.

An intended change to a renderer updates the golden files in the same commit, with the
reason in its message: `UPDATE_GOLDEN=1 python -m pytest tests/reporting/test_golden.py`.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.reporting.latex import render_latex
from harness.reporting.load import load_report
from harness.reporting.markdown import render_markdown
from tests.reporting.fixed_store import write_fixed_store

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def fixed_report(tmp_path, monkeypatch):
    monkeypatch.setattr("harness.reporting.build.git_state", lambda: ("fedcba9876543210", False))
    suite, store = write_fixed_store(tmp_path)
    return load_report(suite, store, root=tmp_path)


@pytest.mark.parametrize(("name", "render"), [("fixed.md", render_markdown), ("fixed.tex", render_latex)])
def test_rendered_report_matches_golden_file(fixed_report, name, render):
    text = render(fixed_report)
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
