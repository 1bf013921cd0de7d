"""The machine a pytest-benchmark file was timed on, fingerprinted as `harness.environment` fingerprints a run's.

From pytest-benchmark's `machine_info`: the architecture, CPU model, core count and vector extensions (the
same `VECTOR_EXTENSIONS`: a virtual machine's model name is often a generic "Intel(R) Xeon(R) Processor"),
and the Python implementation and minor version (pure-Python timings change between 3.11 and 3.12, not
between patch releases). Memory size and GPUs are not in `machine_info`; clock speed is left out, as it
varies with the load while the file is written.
"""
from __future__ import annotations

from typing import Any

from harness.environment import VECTOR_EXTENSIONS
from harness.fingerprint import digest


def benchmark_hardware(machine_info: dict[str, Any]) -> dict[str, Any]:
    """The fields of `machine_info` that make two files' timings comparable; None where a field is absent."""
    cpu = machine_info.get("cpu")
    cpu = cpu if isinstance(cpu, dict) else {}
    flags = cpu.get("flags")
    present = set(flags) if isinstance(flags, list) else set()
    version = str(machine_info.get("python_version", "")).split(".")
    return {
        "machine": machine_info.get("machine"),
        "cpu": cpu.get("brand_raw"),
        "cores": cpu.get("count"),
        "vector_extensions": [name for name in VECTOR_EXTENSIONS if name in present],
        "python": f"{machine_info.get('python_implementation')} {'.'.join(version[:2])}",
    }


def benchmark_fingerprint(machine_info: dict[str, Any]) -> str:
    return digest(benchmark_hardware(machine_info), length=12)


def hardware_difference(base: dict[str, Any], cand: dict[str, Any]) -> str:
    """What differs between two files' machines, base first: `cores 2 vs 4; vector_extensions avx512f vs none`
    (of the vector extensions, only those one side lacks)."""
    base_hardware, cand_hardware = benchmark_hardware(base), benchmark_hardware(cand)
    return "; ".join(f"{field} {' vs '.join(_shown(base_hardware[field], cand_hardware[field]))}"
                     for field in base_hardware if base_hardware[field] != cand_hardware[field])


def _shown(base: Any, cand: Any) -> tuple[str, str]:
    if isinstance(base, list):
        return _only_in(base, cand), _only_in(cand, base)
    return repr(base), repr(cand)


def _only_in(names: list[str], other: list[str]) -> str:
    return "+".join(name for name in names if name not in other) or "none"
