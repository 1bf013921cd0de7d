"""The CLI and the tests find dataset files under one data root, and a missing file says where it looked."""
from __future__ import annotations

from pathlib import Path

from harness.dataset_files import data_root
from tests import conftest

REPO = Path(__file__).resolve().parents[2]


def test_the_tests_and_the_cli_share_one_data_root(monkeypatch, tmp_path):
    monkeypatch.delenv("HARNESS_DATA_ROOT", raising=False)
    assert conftest.data_root() == data_root() == Path("data")
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(tmp_path))
    assert conftest.data_root() == data_root() == tmp_path


def test_a_suite_missing_its_data_says_where_it_looked_and_how_to_point_elsewhere(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("HARNESS_DATA_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("plan", str(REPO / "suites" / "gad_real.yaml"), plugin=False)
    assert code == 3
    err = " ".join(err.split())  # rich may wrap long lines
    assert f"expected {tmp_path / 'data' / 'graphs'}" in err
    assert "--data-root" in err and "$HARNESS_DATA_ROOT" in err
