"""pytest-benchmark JSON for the `harness compare` tests: the keys pytest-benchmark 5 writes, from given round times."""
from __future__ import annotations

import json
from pathlib import Path
from statistics import fmean, median, stdev
from typing import Any

MACHINE = {
    "machine": "x86_64", "system": "Linux", "python_implementation": "CPython", "python_version": "3.11.7",
    "cpu": {"brand_raw": "Intel(R) Xeon(R) Processor", "count": 2, "arch": "X86_64",
            "flags": ["avx", "avx2", "fma", "sse4_2"], "hz_actual_friendly": "2.6000 GHz"},
}
MODULE = "benchmarks/test_bench_engine.py"


def benchmark_document(rounds: dict[str, list[float]], machine_info: dict[str, Any] = MACHINE,
                       save_data: bool = True, saved_at: str = "2026-01-01T00:00:00+00:00") -> dict[str, Any]:
    """A `--benchmark-json` document with one benchmark per test name of `MODULE`, timed as given (seconds)."""
    benchmarks = []
    for name, times in rounds.items():
        stats = {"min": min(times), "max": max(times), "mean": fmean(times),
                 "stddev": stdev(times) if len(times) > 1 else 0, "median": median(times), "rounds": len(times),
                 "iterations": 1, "ops": 1 / fmean(times), "total": sum(times)}
        if save_data:
            stats["data"] = list(times)
        benchmarks.append({"group": None, "name": name, "fullname": f"{MODULE}::{name}", "params": None,
                           "param": None, "extra_info": {}, "options": {"timer": "perf_counter"}, "stats": stats})
    return {"machine_info": machine_info, "commit_info": {"id": "0" * 40, "dirty": False},
            "benchmarks": benchmarks, "datetime": saved_at, "version": "5.2.3"}


def write_benchmarks(path: Path, rounds: dict[str, list[float]], **options: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(benchmark_document(rounds, **options)))
    return str(path)
