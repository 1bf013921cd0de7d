"""Every committed report exists in every format `reports/regenerate.sh` asks for, and was rendered from a
committed tree (its footer says so); the generated leaderboard site stays out of git and builds on demand."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[1] / "reports"
SCRIPT = (REPORTS / "regenerate.sh").read_text()
SUITES = re.search(r"for suite in (.*?); do", SCRIPT, re.S).group(1).replace("\\", " ").split()
FORMATS = re.search(r"^formats=(\S+)", SCRIPT, re.M).group(1).split(",")
FILES = {"md": ["report.md"], "tex": ["report.tex"], "csv": ["table.csv", "runs.csv"]}  # html: built, not committed


def test_the_script_lists_suites_and_formats():
    assert len(SUITES) >= 20 and "quickstart" in SUITES and set(FORMATS) <= set(FILES) | {"png", "pdf"}


@pytest.mark.parametrize("suite", SUITES)
def test_a_committed_report_has_every_format_the_script_asks_for(suite):
    folder = REPORTS / suite
    missing = [name for fmt in FORMATS for name in FILES.get(fmt, []) if not (folder / name).is_file()]
    assert not missing, f"reports/{suite} lacks {missing}: run bash reports/regenerate.sh"
    if "png" in FORMATS:
        assert list(folder.glob("*.png")), f"reports/{suite} has no plot"


@pytest.mark.parametrize("suite", SUITES)
def test_a_committed_report_was_rendered_from_a_clean_tree(suite):
    footer = (REPORTS / suite / "report.md").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    state = re.search(r"rendered at git ([0-9a-f]{10}|unknown) \(([a-z ]+)\)", footer)
    assert state, f"reports/{suite}/report.md's footer does not say what it was rendered from: {footer}"
    assert state.group(2) == "clean", f"reports/{suite} was rendered from a {state.group(2)} tree: commit, then render"


def test_the_generated_site_stays_out_of_git():
    """Its pages embed their plots (megabytes): `regenerate.sh --site` builds them, git ignores them."""
    assert "html" not in FORMATS
    if shutil.which("git") is None or not (REPORTS.parent / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", "reports/site/index.html"], cwd=REPORTS.parent)
    assert ignored.returncode == 0, "reports/site/ is not ignored by .gitignore"


def test_the_site_mode_builds_the_site_from_the_committed_exports():
    """What `bash reports/regenerate.sh --site` runs; tests/reporting/test_site*.py test the command itself."""
    assert re.search(r'--site.*\n.*exec harness site --out reports/site --plots\n', SCRIPT)
