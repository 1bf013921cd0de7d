"""Shared fixtures: where real data lives, and a skip when it is absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    """HARNESS_DATA_ROOT if set, else the shared data folder beside the checkout, else ./data."""
    if os.environ.get("HARNESS_DATA_ROOT"):
        return Path(os.environ["HARNESS_DATA_ROOT"])
    shared = REPO.parent / "shared" / "data"
    return shared if shared.is_dir() else REPO / "data"


@pytest.fixture
def real_graph_path():
    """Path of a real graph under the data root; skips the test when the file is absent."""

    def find(name: str) -> Path:
        path = data_root() / "graphs" / f"{name}.npz"
        if not path.is_file():
            pytest.skip(f"real graph {path} is absent (set HARNESS_DATA_ROOT)")
        return path

    return find
