"""Packaging facts a user relies on: entry points, light imports, no clash with HF `kernels`."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO


def test_our_kernels_package_is_not_a_distribution_named_kernels():
    assert importlib.util.find_spec("kernels") is not None
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.version("kernels")
    import kernels

    assert not hasattr(kernels, "__version__")
    assert not {"get_kernel", "kernelize", "LayerRepository"} & set(dir(kernels))


def test_transformers_does_not_mistake_our_kernels_for_hugging_face_kernels():
    pytest.importorskip("transformers")
    probe = (
        "from transformers.utils import import_utils as u\n"
        "assert not u.is_kernels_available(), 'transformers thinks HF kernels is installed'\n"
        "import transformers.integrations.hub_kernels\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_builtin_family_registers_through_the_entry_point():
    groups = importlib.metadata.entry_points(group="harness.families")
    assert "graph_anomaly" in {ep.name for ep in groups}


def test_harness_cli_starts_without_importing_torch():
    probe = (
        "import sys\nfrom harness.cli import main\n"
        "main(['ls', 'methods'])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "graph_anomaly.gcn" in result.stdout


def test_package_data_ships_every_report_template():
    """The HTML leaderboard reads its template from the installed package, so a wheel must carry each file."""
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    package = REPO / "harness" / "reporting"
    shipped = {path for pattern in patterns["harness.reporting"] for path in package.glob(pattern)}
    templates = set((package / "templates").iterdir())
    assert templates and templates <= shipped
