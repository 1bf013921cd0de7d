"""Instruction counts of benchmarks under Valgrind's callgrind: a speed figure that load does not move and that
x86-64 CPUs share, for CI gates (the approach of CodSpeed and iai-callgrind).

Each pytest-benchmark test runs twice under callgrind, its benchmarked function called once and then three times
(`harness.bench_calls`); half the difference of the two totals is one call's cost, without pytest's start, the
imports or the test's setup (two processes' totals differ by up to 1e-4 of their whole: random run ids and
temporary names; over two calls that stays well inside the gate's 2 %). Valgrind emulates one CPU whatever the
host is (no AVX-512: numpy dispatches the same kernels on an AVX-512 Xeon and an AVX2 EPYC), with a fixed cache
model, ASLR off and `PYTHONHASHSEED=0`.
Estimated cycles weigh the cache model's hits as iai-callgrind does: L1 hits + 5 x last-level hits + 35 x RAM.
"""
from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.errors import HarnessError

FORMAT: Literal["harness-instruction-counts/1"] = "harness-instruction-counts/1"
CACHE_MODEL = {"I1": "32768,8,64", "D1": "32768,8,64", "LL": "8388608,16,64"}  # size, associativity, line bytes
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
BUILD_PACKAGES = ("numpy", "pandas", "pyarrow", "pydantic", "pyyaml", "scipy", "torch")  # whose code the engine runs
PLUGIN = ("-p", "no:benchmark", "-p", "harness.bench_calls")


class BenchmarkCounts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    fullname: str
    instructions: int
    estimated_cycles: int
    events: dict[str, int]      # one call's callgrind events (EVENTS)


class CountsFile(BaseModel):
    """What `harness bench` writes: each benchmark's counts and the build that produced them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["harness-instruction-counts/1"] = FORMAT
    build: dict[str, str]       # python, machine, valgrind, packages' versions: counts compare within one build
    cache_model: dict[str, str]
    benchmarks: list[BenchmarkCounts]


class BenchError(HarnessError):
    """Valgrind is absent, or a benchmark failed while it was counted."""


def estimated_cycles(events: dict[str, int]) -> int:
    """L1 hits + 5 x last-level hits + 35 x RAM accesses, from callgrind's cache-simulation events."""
    accesses = events["Ir"] + events["Dr"] + events["Dw"]
    l1_misses = events["I1mr"] + events["D1mr"] + events["D1mw"]
    ram = events["ILmr"] + events["DLmr"] + events["DLmw"]
    return (accesses - l1_misses) + 5 * (l1_misses - ram) + 35 * ram


def read_callgrind_totals(path: Path) -> dict[str, int]:
    """The `events:` and `summary:` lines of a callgrind output file, as event -> count."""
    names: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:"):
            return dict(zip(names, map(int, line.split()[1:]), strict=True))
    raise BenchError(f"callgrind wrote no summary to {path}", hint="Run the benchmark without valgrind to see why.")


def build_of() -> dict[str, str]:
    """The software whose instructions are counted: counts compare only within one build of it."""
    build = {"python": f"{platform.python_implementation()} {platform.python_version()}",
             "machine": platform.machine(), "valgrind": _valgrind_version()}
    for name in BUILD_PACKAGES:
        try:
            build[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return build


def collect(pytest_args: list[str], repo: Path) -> list[str]:
    """The node ids of the benchmarks `pytest_args` select (paths, -k, -m)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *PLUGIN, *pytest_args],
                          cwd=repo, capture_output=True, text=True)
    nodes = [line for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")]
    if done.returncode not in (0, 5) or not nodes:
        raise BenchError(f"no benchmark collected from {' '.join(pytest_args)}",
                         hint=f"pytest said: {(done.stdout + done.stderr).strip()[-600:]}")
    return nodes


def count_benchmark(node: str, repo: Path, scratch: Path) -> BenchmarkCounts:
    """One call's counts of the benchmark `node`: ((three calls) - (one call)) / 2, each counted in its own
    process."""
    once, thrice = (_count_process(node, calls, repo, scratch) for calls in (1, 3))
    one_call = {event: (thrice[event] - once[event]) // 2 for event in EVENTS}
    return BenchmarkCounts(fullname=node, instructions=one_call["Ir"], estimated_cycles=estimated_cycles(one_call),
                           events=one_call)


def _count_process(node: str, calls: int, repo: Path, scratch: Path) -> dict[str, int]:
    out = scratch / f"callgrind-{calls}.out"
    cache = [f"--{level}={spec}" for level, spec in CACHE_MODEL.items()]
    command = ["setarch", platform.machine(), "-R", "valgrind", "--tool=callgrind", "--cache-sim=yes", *cache,
               f"--callgrind-out-file={out}", sys.executable, "-m", "pytest", node, *PLUGIN, "-q",
               "-p", "no:cacheprovider", "-o", "addopts=", f"--basetemp={scratch / 'tmp'}"]
    env = {**os.environ, "PYTHONHASHSEED": "0", "HARNESS_BENCH_CALLS": str(calls)}
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"benchmark {node} failed under valgrind (exit {done.returncode})",
                         hint=done.stdout.strip()[-800:] or done.stderr.strip()[-800:])
    return read_callgrind_totals(out)


def count_benchmarks(pytest_args: list[str], repo: Path, report: bool = True) -> CountsFile:
    """Every selected benchmark's counts; prints a line per benchmark as it is counted when `report`."""
    if shutil.which("valgrind") is None or shutil.which("setarch") is None:
        raise BenchError("valgrind (and setarch) are needed to count instructions",
                         hint="Install them: apt-get install valgrind util-linux.")
    counted = []
    for node in collect(pytest_args, repo):
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
            counts = count_benchmark(node, repo, Path(scratch))
        counted.append(counts)
        if report:
            print(f"{node}: {counts.instructions:,} instructions, {counts.estimated_cycles:,} estimated cycles "
                  f"({time.monotonic() - started:.0f} s under valgrind)", flush=True)
    return CountsFile(build=build_of(), cache_model=CACHE_MODEL, benchmarks=counted)


def is_counts_file(source: str) -> bool:
    """Whether `source` is a JSON file `harness bench` wrote."""
    path = Path(source)
    if not (path.is_file() and path.suffix.lower() == ".json"):
        return False
    with path.open(encoding="utf-8", errors="replace") as handle:
        return FORMAT in handle.read(200)


def load_counts(source: str) -> CountsFile:
    try:
        return CountsFile.model_validate_json(Path(source).read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        raise BenchError(f"{source} is not an instruction-counts file: {str(exc).splitlines()[0]}",
                         hint="Give files `harness bench --out FILE` wrote.") from None


def _valgrind_version() -> str:
    if shutil.which("valgrind") is None:
        return "absent"
    return subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
