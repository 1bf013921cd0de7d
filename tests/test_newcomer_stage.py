"""CI's newcomer stage (.ci/newcomer.py) runs the README's own two commands, and fails when a test module imports
an absent package at module level or skips for one without naming its extra."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.scripts import load_script

newcomer = load_script(REPO / ".ci" / "newcomer.py")


def test_the_stage_reads_the_readmes_install_and_test_commands():
    install, test = newcomer.quick_start_commands((REPO / "README.md").read_text())
    assert install.startswith("pip install torch==2.13.0 ") and "harness run suites/quickstart.yaml" in install
    assert test == 'python -m pytest -m "not slow"'
    ci = (REPO / ".ci" / "run").read_text()
    assert ci.index("python3 .ci/newcomer.py") < ci.index("pip install")  # first, before any extra is installed


def test_a_quick_start_with_a_third_command_is_refused():
    readme = "## Quick start\n```bash\na\n```\n```bash\nb\n```\n```bash\nc\n```\n## Next\n"
    with pytest.raises(ValueError, match="exactly two one-line bash blocks"):
        newcomer.quick_start_commands(readme)


def test_skips_that_do_not_name_an_extra_are_found():
    output = textwrap.dedent("""\
        SKIPPED [1] tests/motion_tokens: motion_tokens/: family motion_tokens needs the `motion-tokens` extra
        SKIPPED [3] tests/x/test_a.py:4: could not import 'trimesh': No module named 'trimesh'
        SKIPPED [1] tests/x/test_b.py:9: real graph data/graphs/reddit.npz is absent
        """)
    assert newcomer.unnamed_skips(output) == [
        "SKIPPED [3] tests/x/test_a.py:4: could not import 'trimesh': No module named 'trimesh'"]


def _project(root: Path, test_module: str) -> Path:
    """A project whose README's Quick start installs nothing and runs pytest over one test module."""
    (root / "tests").mkdir(parents=True)
    (root / "README.md").write_text("# p\n\n## Quick start\n\n```bash\necho installed\n```\n\n"
                                    "```bash\npython -m pytest -ra tests\n```\n\n## Next\n")
    (root / "tests" / "test_module.py").write_text(textwrap.dedent(test_module))
    return root


@pytest.fixture(scope="module")
def venv_with_pytest(tmp_path_factory) -> Path:
    """A stand-in for the venv command 1 fills: its `python` is this interpreter, with pytest. (A real venv made
    with system site packages would see the base interpreter's packages, not this venv's.)"""
    folder = tmp_path_factory.mktemp("newcomer") / "venv"
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return folder


IMPORTS_AN_ABSENT_EXTRA = "import a_package_no_extra_installed\n\ndef test_x():\n    pass\n"
SKIPS_WITHOUT_NAMING_IT = """\
import pytest

def test_x():
    pytest.importorskip("a_package_no_extra_installed")

def test_y():
    pass
"""


@pytest.mark.parametrize(("module", "said"), [
    (IMPORTS_AN_ABSENT_EXTRA, "README command 2 exited 2"),   # pytest's collection error
    (SKIPS_WITHOUT_NAMING_IT, "without naming the extra"),
], ids=["module-level-import", "unnamed-skip"])
def test_the_stage_fails_on_a_module_importing_an_absent_extra_or_a_skip_not_naming_it(
        module, said, tmp_path, venv_with_pytest, capsys):
    assert newcomer.run_stage(_project(tmp_path, module), venv_with_pytest) == 1
    assert said in capsys.readouterr().err


def test_the_stage_passes_a_project_whose_tests_pass_and_prints_both_wall_times(tmp_path, venv_with_pytest,
                                                                              capsys):
    repo = _project(tmp_path, "def test_x():\n    pass\n")
    assert newcomer.run_stage(repo, venv_with_pytest) == 0
    out, _ = capsys.readouterr()
    assert "README command 1 exited 0 after 0 min" in out and "README command 2 exited 0 after 0 min" in out
