"""The numerics fingerprint a run records: what sets a CPU result's last digits (instruction sets, BLAS, the
numeric packages' builds, the variables that override their kernels), not what only moves timings (core count,
CPU name, memory)."""
from __future__ import annotations

from harness import environment


def _fingerprint() -> str:
    environment.numerics.cache_clear()
    return environment.numerics_fingerprint()


def test_the_numerics_fingerprint_follows_instruction_sets_and_builds_not_the_core_count(monkeypatch):
    here = _fingerprint()
    try:
        monkeypatch.setattr(environment.os, "cpu_count", lambda: 64)
        assert _fingerprint() == here
        monkeypatch.setattr(environment, "_vector_extensions", lambda: ["sse4_2", "avx", "avx2", "fma"])
        avx2 = _fingerprint()
        assert avx2 != here
        monkeypatch.setattr(environment, "_package_versions", lambda: {"numpy": "9.9.9"})
        assert _fingerprint() not in (here, avx2)
        monkeypatch.undo()
        monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")  # ATen's scalar kernels, as on a CPU without AVX2
        assert _fingerprint() != here
    finally:
        monkeypatch.undo()
        environment.numerics.cache_clear()
