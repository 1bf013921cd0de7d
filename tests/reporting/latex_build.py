"""Compile a rendered LaTeX report inside a minimal article, as a paper would `\\input` it."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def assert_latex_compiles(tex: str, folder: Path) -> None:
    """pdflatex builds a PDF from `tex` (skips where pdflatex is not installed)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended)")
    (folder / "report.tex").write_text(tex)
    (folder / "doc.tex").write_text("\\documentclass{article}\\usepackage[utf8]{inputenc}\\usepackage{booktabs}"
                                    "\\begin{document}\\input{report.tex}\\end{document}\n")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                            cwd=folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    assert (folder / "doc.pdf").stat().st_size > 1000
