"""Benchmarks (pytest-benchmark): the harness's own speed, measured, never asserted.

Run: `python -m pytest benchmarks --benchmark-only`; figures are printed in the table
pytest-benchmark draws, and each benchmark adds its derived figure to `extra_info`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TOY_PLUGIN = str(ROOT / "tests" / "plugins" / "toy_family.py")


def data_file(relative: str) -> Path:
    """A file under the data root ($HARNESS_DATA_ROOT, else shared/data beside the checkout); skips when absent."""
    from tests.conftest import data_root

    path = data_root() / relative
    if not path.is_file():
        pytest.skip(f"{path} is absent (set HARNESS_DATA_ROOT)")
    return path


@pytest.fixture
def one_thread():
    """torch on one thread for the benchmark (as the suites run), restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def pytest_benchmark_update_machine_info(config, machine_info):
    """No hostname in a saved benchmark file, as in a run record: `benchmarks/baseline/` is committed."""
    machine_info.pop("node", None)
