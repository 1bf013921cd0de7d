"""The starter family in templates/family/ keeps working: its suite validates, runs and supports its claims
through its plugin file, and `new_family.py` makes a renamed copy whose suites validate, whose tests and
benchmark pass, laid out as the repository lays a family out, and whose methods pass the conformance tests.
Every command runs in its own interpreter, so the template's names never enter this process's registries."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "templates" / "family"
NAME = "renamed_family"


def _run(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *command], cwd=cwd, capture_output=True, text=True, timeout=300)


def _copy_template(destination: Path) -> Path:
    shutil.copytree(TEMPLATE, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


def test_the_template_is_not_a_registered_family():
    assert not (REPO / "methods" / "my_family").exists()
    assert "my_family" not in (REPO / "pyproject.toml").read_text()


@pytest.mark.slow
def test_the_template_suite_validates_runs_and_supports_its_claims_as_a_plugin(tmp_path):
    starter = _copy_template(tmp_path / "family")
    suite, plugin = str(starter / "suites" / "my_family.yaml"), ["--plugin", str(starter / "plugin.py")]
    store = ["--store", str(tmp_path / "results.sqlite")]
    validated = _run("-m", "harness.cli", "validate", suite, str(starter / "tests/repeat_runs/my_family.yaml"),
                     *plugin, cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    ran = _run("-m", "harness.cli", "run", suite, *store, *plugin, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "24 runs executed (0 failed)" in ran.stdout
    reported = _run("-m", "harness.cli", "report", suite, *store, *plugin, "--format", "md",
                    "--out", str(tmp_path / "report"), cwd=tmp_path)
    assert reported.returncode == 0, reported.stderr
    claims = (tmp_path / "report" / "report.md").read_text().split("## Claims", 1)[1]
    assert claims.count("| supported |") == 2


@pytest.fixture
def renamed_repo(tmp_path) -> Path:
    """A repository holding only the template, after `new_family.py renamed_family`."""
    repo = tmp_path / "repo"
    _copy_template(repo / "templates" / "family")
    created = _run(str(repo / "templates" / "family" / "new_family.py"), NAME, cwd=repo)
    assert created.returncode == 0, created.stderr
    assert "pyproject.toml" in created.stdout  # the steps left by hand
    return repo


def _register_from(repo: Path) -> str:
    """What the entry point does in the real repository: `methods.<name>` imported from `repo/methods`."""
    plugin = repo / "register.py"
    plugin.write_text(f"import importlib\nimport methods\n\nmethods.__path__.append({str(repo / 'methods')!r})\n"
                      f"importlib.import_module('methods.{NAME}')\n")
    (repo / "conftest.py").write_text(f"from harness.registry import load_plugin_file\n\n"
                                      f"load_plugin_file({str(plugin)!r})\n")
    return str(plugin)


@pytest.mark.slow
def test_new_family_writes_a_renamed_family_that_validates_and_passes_its_tests(renamed_repo):
    created = [path for path in renamed_repo.rglob("*") if path.is_file() and "templates" not in path.parts]
    assert {path.relative_to(renamed_repo).as_posix() for path in created} >= {
        f"methods/{NAME}/__init__.py", f"methods/{NAME}/baselines/random_scores.py", f"suites/{NAME}.yaml",
        f"tests/{NAME}/test_{NAME}.py", f"tests/repeat_runs/{NAME}.yaml", f"benchmarks/test_bench_{NAME}.py"}
    assert [path for path in created if "my_family" in path.read_text()] == []
    plugin = _register_from(renamed_repo)
    validated = _run("-m", "harness.cli", "validate", f"suites/{NAME}.yaml", f"tests/repeat_runs/{NAME}.yaml",
                     "--plugin", plugin, cwd=renamed_repo)
    assert validated.returncode == 0, validated.stderr
    tested = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/{NAME}", f"benchmarks/test_bench_{NAME}.py",
                  cwd=renamed_repo)
    assert tested.returncode == 0, tested.stdout[-3000:]
    assert "11 passed" in tested.stdout


@pytest.mark.slow
def test_a_renamed_familys_methods_pass_the_conformance_tests(renamed_repo):
    """What CI does once the family's entry point is installed: tests/conformance reads the registry, so the
    renamed family's methods are among its cases (two each: declared tiny parameters, a tiny run)."""
    _register_from(renamed_repo)
    conformance = str(REPO / "tests" / "conformance" / "test_methods.py")
    tested = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "register", conformance, "-k", NAME,
                  cwd=renamed_repo)
    assert tested.returncode == 0, tested.stdout[-3000:]
    assert "4 passed" in tested.stdout


def test_new_family_overwrites_nothing(renamed_repo):
    again = _run(str(renamed_repo / "templates" / "family" / "new_family.py"), NAME, cwd=renamed_repo)
    assert again.returncode == 3 and "exists already" in again.stderr
