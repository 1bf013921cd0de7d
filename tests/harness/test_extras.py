"""A family whose pip extra is absent is named with its install line: its suites are refused before any run (exit
3, nothing stored), validated with a warning, and its tests skip; an installed one is never refused."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib

import pytest
from packaging.requirements import Requirement

from harness import extras
from harness.extras import extra_requirements, family_unavailable, install_hint, missing_for, unmet
from harness.family_manifest import FamilyManifest, InstalledFamily
from harness.store import Store
from tests.conftest import REPO

ABSENT = "a-package-no-one-installed==1.0"


def test_an_extras_requirements_are_pyprojects_for_that_extra_alone():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert [(r.name, r.specifier) for r in extra_requirements("graph")] == [
        (r.name, r.specifier) for r in map(Requirement, declared["graph"])]
    with pytest.raises(ValueError, match="no extra 'grahp' is declared by iclr26-harness; declared: graph, "):
        extra_requirements("grahp")


def test_a_requirement_is_unmet_when_absent_or_at_a_version_it_excludes():
    import numpy

    assert unmet(Requirement("numpy>=1")) is None
    assert unmet(Requirement("numpy<1")) == f"numpy {numpy.__version__} where <1 is needed"
    assert unmet(Requirement(ABSENT)) == "a-package-no-one-installed"
    assert missing_for("graph", [ABSENT]) == ["a-package-no-one-installed"]


def test_the_install_hint_is_the_readmes_for_our_extras_and_the_packages_name_for_anothers():
    assert install_hint("rl") == 'pip install -e ".[rl]"'
    assert install_hint("driving", ["nuscenes-devkit==1.2.0"]) == \
        'pip install -e ".[driving]" && pip install --no-deps nuscenes-devkit==1.2.0'
    assert install_hint("gpu", distribution="their-family") == 'pip install "their-family[gpu]"'


def test_every_built_in_family_declares_an_extra_pyproject_declares_and_has_a_test_folder_of_its_name():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for manifest in sorted(REPO.glob("methods/*/family.toml")):
        extra = tomllib.loads(manifest.read_text()).get("extra")
        assert extra in declared, f"{manifest}: `extra = ...` must name one of pyproject.toml's extras"
        assert (REPO / "tests" / manifest.parent.name).is_dir(), f"the tests of {manifest.parent.name}"


def test_installed_families_are_available_and_a_plugin_is_never_refused():
    assert family_unavailable("graph_anomaly") is None  # the Quick start installs its extra
    assert family_unavailable("toy") is None            # tests/plugins: no manifest, nothing to check


@pytest.fixture
def toy_needs_an_absent_package(monkeypatch):
    """The toy family, as if installed with a manifest naming a package that is not installed."""
    needs = InstalledFamily(FamilyManifest(extra="graph", installed_apart=[ABSENT]), "iclr26-harness")
    monkeypatch.setattr(extras, "installed_family", lambda family: needs if family == "toy" else None)


def test_running_a_suite_whose_family_lacks_its_extra_stops_before_any_run_naming_the_install(
        toy_needs_an_absent_package, cli, write_suite, store):
    code, _, err = cli("run", str(write_suite()), "--store", str(store))
    assert code == 3 and "Traceback" not in err
    assert ("family toy needs the `graph` extra and a-package-no-one-installed==1.0 (not met here: "
            "a-package-no-one-installed)") in err
    assert 'pip install -e ".[graph]" && pip install --no-deps a-package-no-one-installed==1.0' in err
    assert not store.exists() or list(Store(store).records()) == []


def test_validating_such_a_suite_passes_with_a_warning_that_its_datasets_went_unchecked(
        toy_needs_an_absent_package, cli, write_suite):
    code, out, err = cli("validate", str(write_suite()))
    assert code == 0 and "warning:" in err and "datasets not checked by the family: family toy needs" in err


def test_a_test_folder_is_skipped_whole_before_its_conftest_imports_the_absent_package(tmp_path):
    """The collection hook's mechanism (tests/extras.py), in a project of its own: a folder standing for a family
    whose extra is absent, its conftest and module importing a package no one installed."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""\
        import pytest
        from tests.extras import skip_folder

        @pytest.hookimpl(tryfirst=True)
        def pytest_collect_directory(path, parent):
            if path.name == "family_x":
                return skip_folder(path, parent, "family family_x needs the `x` extra: pip install -e '.[x]'")
        """))
    folder = tmp_path / "family_x"
    folder.mkdir()
    (folder / "conftest.py").write_text("import a_package_no_one_installed\n")
    (folder / "test_x.py").write_text("import a_package_no_one_installed\n\ndef test_x():\n    pass\n")
    (tmp_path / "test_other.py").write_text("def test_other():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-ra", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout[-2000:]
    assert "1 passed, 1 skipped" in done.stdout
    assert "family_x/: family family_x needs the `x` extra: pip install -e '.[x]'" in done.stdout
