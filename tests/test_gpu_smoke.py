"""benchmarks/gpu_smoke.sh, the GPU check a person with a CUDA machine runs: it parses, passes shellcheck where
installed, and on a machine without CUDA stops at once with a 'no CUDA' line and a non-zero code."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_smoke.sh"


def test_the_script_parses_as_bash():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    assert SCRIPT.read_text().splitlines()[:12].count("set -euo pipefail") == 1


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_script_passes_shellcheck():
    result = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(_has_cuda(), reason="CUDA is here: the script would run the whole GPU check")
def test_without_cuda_it_stops_with_a_no_cuda_line(tmp_path):
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                            env=os.environ | {"TRITON_INTERPRET": "1"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "gpu_smoke: no CUDA:" in result.stderr and "== gpu_smoke: 1/4 device" in result.stdout
    assert "2/4" not in result.stdout
