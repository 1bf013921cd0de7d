"""Engine-test fixtures: a suite file of the toy family, and the CLI called in-process."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.cli import main

TOY_PLUGIN = str(Path(__file__).resolve().parents[1] / "plugins" / "toy_family.py")

TOY_SUITE = """\
schema_version: 1
suite: toy
task: toy.sign
defaults: {seeds: [0, 1], timeout: 20s}
datasets:
  easy: {loader: numbers, args: {shift: 1.0}}
metrics: [accuracy]
methods:
  thr: {impl: threshold, params: {t: [0.0, 0.5]}}
"""


@pytest.fixture
def write_suite(tmp_path):
    def write(text: str = TOY_SUITE, name: str = "suite.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


@pytest.fixture
def cli(tmp_path, capsys):
    """Run `harness ARGS --plugin toy` in-process; returns (exit code, stdout, stderr)."""

    def call(*args: str, plugin: bool = True) -> tuple[int, str, str]:
        argv = list(args) + (["--plugin", TOY_PLUGIN] if plugin else [])
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return call


@pytest.fixture
def store(tmp_path) -> Path:
    return tmp_path / "store" / "results.sqlite"
