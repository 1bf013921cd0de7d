"""Measurements around a method's run: wall and CPU time, peak RSS, peak CUDA memory.

Workers are reused across runs, so the peak RSS must be reset per run: on Linux
writing 5 to /proc/self/clear_refs resets the high-water mark VmHWM; elsewhere the
process-lifetime `ru_maxrss` is the (upper-bound) fallback. The peak of a process's
subprocesses cannot be reset at all (`subprocess_peak_mb`).
"""
from __future__ import annotations

import resource
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# The figures `measured` records for every run, with their units; lower is better for each.
HARDWARE_MEASURES = {"wall_s": "s", "cpu_s": "s", "peak_rss_mb": "MB", "peak_cuda_mb": "MB"}

_CLEAR_REFS = Path("/proc/self/clear_refs")
_STATUS = Path("/proc/self/status")


def reset_peak_rss() -> None:
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        pass


def peak_rss_mb() -> float:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return _maxrss_mb(resource.RUSAGE_SELF)


def subprocess_peak_mb() -> float:
    """The peak resident memory of the largest subprocess this process has waited for (descendants they waited
    for included), in MB: a spike between two of the local executor's memory polls still shows here once the
    subprocess has ended. It only ever grows, so a run sees its own subprocesses' peak when they raised it."""
    return _maxrss_mb(resource.RUSAGE_CHILDREN)


def _maxrss_mb(who: int) -> float:
    maxrss = resource.getrusage(who).ru_maxrss
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def _cuda():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda
    return None


@contextmanager
def measured(into: dict[str, dict[str, float | str]]) -> Iterator[None]:
    """Time the block and record its resource peaks into `into` (name -> {value, unit})."""
    reset_peak_rss()
    cuda = _cuda()
    if cuda is not None:
        cuda.synchronize()
        cuda.reset_peak_memory_stats()
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        cuda = _cuda()
        if cuda is not None:
            cuda.synchronize()
            into["peak_cuda_mb"] = {"value": cuda.max_memory_allocated() / 2**20, "unit": "MB"}
        into["wall_s"] = {"value": time.perf_counter() - wall, "unit": "s"}
        into["cpu_s"] = {"value": time.process_time() - cpu, "unit": "s"}
        into["peak_rss_mb"] = {"value": peak_rss_mb(), "unit": "MB"}
