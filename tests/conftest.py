"""Shared fixtures: where real data lives (skipping when absent), and the toy family's suite and CLI."""
from __future__ import annotations

import os
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.dataset_files import data_root as harness_data_root
from harness.extras import family_unavailable
from tests.extras import skip_folder

REPO = Path(__file__).resolve().parents[1]


def _interpret_triton_without_cuda() -> None:
    """Triton reads TRITON_INTERPRET once, when it is first imported, and other packages import it early
    (torch-geometric does), so the kernel tests' CPU interpreter is switched on here, before any test module."""
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")


_interpret_triton_without_cuda()


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """`tests/<family>/` of a family whose extra is absent is one skip naming the extra (tests/extras.py)."""
    if path.parent != Path(__file__).parent:
        return None
    reason = family_unavailable(path.name)
    return skip_folder(path, parent, reason) if reason else None


def data_root() -> Path:
    """The CLI's own data root ($HARNESS_DATA_ROOT, else ./data): a test skipping for want of a file and
    `harness run` failing for want of it look in one place."""
    return harness_data_root()


def interruptible(command: list[str], **kwargs) -> subprocess.Popen:  # noqa: ANN003
    """`subprocess.Popen` whose child takes SIGINT as Ctrl-C even when this test process was started
    in the background, where shells hand SIGINT down ignored (and Python then never raises KeyboardInterrupt)."""
    return subprocess.Popen(command, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kwargs)


@pytest.fixture
def real_graph_path():
    """Path of a real graph under the data root; skips the test when the file is absent."""

    def find(name: str) -> Path:
        path = data_root() / "graphs" / f"{name}.npz"
        if not path.is_file():
            pytest.skip(f"real graph {path} is absent (set HARNESS_DATA_ROOT)")
        return path

    return find

TOY_PLUGIN = str(Path(__file__).resolve().parent / "plugins" / "toy_family.py")

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
