"""Provenance of a run: software versions, the git commit, a hardware fingerprint and a numerics fingerprint.

No hostname or user name is recorded: the fingerprint says what the machine *is*
(CPU model, its vector instruction sets, cores, memory, GPUs), which is what makes timings
comparable and what CPU results are reproducible on.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from harness.fingerprint import digest

# The CPU features torch, MKL and oneDNN choose their kernels by. A virtual machine's model name is often a
# generic "Intel(R) Xeon(R) Processor" whatever the host, while AVX2 and AVX-512 kernels reduce in other
# orders: PRISM's and PiCO's plg_prism answers differ between them under one run key (measured by forcing
# ATen's AVX2 kernels on an AVX-512 host).
VECTOR_EXTENSIONS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
                     "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "asimd", "sve", "sve2")
# Variables that make numpy, ATen, MKL and OpenBLAS pick other kernels than the CPU's best: they change a float
# result's last digits as another CPU would, so the numerics fingerprint includes them.
KERNEL_OVERRIDES = ("ATEN_CPU_CAPABILITY", "NPY_DISABLE_CPU_FEATURES", "MKL_ENABLE_INSTRUCTIONS", "OPENBLAS_CORETYPE")
PACKAGES = ("numpy", "scipy", "pandas", "torch", "torch-geometric", "scikit-learn", "triton", "transformers")
_SOURCE_DIR = Path(__file__).resolve().parent.parent


@cache
def hardware() -> dict[str, Any]:
    return {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "vector_extensions": _vector_extensions(),
        "cores": os.cpu_count(),
        "memory_gb": round(_total_memory_bytes() / 2**30, 1),
        "gpus": gpu_names(),
    }


def hardware_fingerprint() -> str:
    return digest(hardware(), length=12)


NUMERIC_PACKAGES = ("numpy", "scipy", "torch")


@cache
def numerics() -> dict[str, Any]:
    """What sets a CPU result's last digits under one run key: the instruction sets the kernels dispatch on, the
    BLAS numpy was built with, the variables that override their kernel choice, and the numeric packages' builds;
    not the CPU's name, core count or memory, which `hardware` adds for timings."""
    import numpy

    blas = numpy.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    return {
        "machine": platform.machine(),
        "vector_extensions": _vector_extensions(),
        "blas": f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip(),
        "kernel_overrides": {name: os.environ[name] for name in KERNEL_OVERRIDES if name in os.environ},
        "packages": {name: found for name, found in _package_versions().items() if name in NUMERIC_PACKAGES},
    }


def numerics_fingerprint() -> str:
    """Runs under one run key with one numerics fingerprint repeat bitwise where their method is deterministic;
    across fingerprints they may differ in the last digits, and a trained model by more."""
    return digest(numerics(), length=12)


@cache
def gpu_names() -> tuple[str, ...]:
    """GPU names from nvidia-smi, without importing torch (the coordinator stays light)."""
    if shutil.which("nvidia-smi") is None:
        return ()
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(line.strip() for line in out.splitlines() if line.strip())


@cache
def environment() -> dict[str, Any]:
    """What the coordinator records once per `harness run`; workers add the torch details."""
    from harness import __version__

    sha, dirty = git_state()
    return {
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "harness": __version__,
        "packages": _package_versions(),
        "git_sha": sha,
        "git_dirty": dirty,
        "hardware": hardware(),
        "hardware_fingerprint": hardware_fingerprint(),
        "numerics": numerics(),
        "numerics_fingerprint": numerics_fingerprint(),
    }


def git_state() -> tuple[str | None, bool | None]:
    """The commit of the harness source tree and whether it has uncommitted changes.

    Generated reports (`reports/`) do not make a tree dirty: regenerating them is not a code change.
    """
    if shutil.which("git") is None:
        return None, None
    try:
        sha = subprocess.run(["git", "-C", str(_SOURCE_DIR), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(_SOURCE_DIR), "status", "--porcelain", "--untracked-files=no",
                                 "--", ".", ":!reports"],
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return sha, bool(status.strip())


def torch_details() -> dict[str, Any]:
    """Torch, CUDA and driver versions, only if the run imported torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    details: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.version.cuda,
                               "torch_threads": torch.get_num_threads()}
    if torch.cuda.is_available():
        details["cuda_device"] = torch.cuda.get_device_name()
    return details


def _package_versions() -> dict[str, str]:
    found = {}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def vector_extensions(cpuinfo: str) -> list[str]:
    """The `VECTOR_EXTENSIONS` a /proc/cpuinfo text reports (x86 `flags` or Arm `Features`), in that order."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            present = set(value.split())
            return [name for name in VECTOR_EXTENSIONS if name in present]
    return []


def _vector_extensions() -> list[str]:
    try:
        return vector_extensions(Path("/proc/cpuinfo").read_text())
    except OSError:
        return []


def _total_memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0
