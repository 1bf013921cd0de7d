"""pytest-benchmark's JSON as a side of `harness compare`: what `pytest --benchmark-json FILE` writes,
or a run `--benchmark-autosave`/`--benchmark-save NAME` saved under `.benchmarks/<machine>/NNNN_<name>.json`.

A side is named as the user has it: `FILE.json`; `DIR`, the newest run saved under it (by the `datetime`
each file records: the NNNN counters restart in each machine's subfolder, and git keeps no mtimes);
`DIR@ID`, the saved run whose file name starts with ID (`0003`, `0003_baseline`); or `REF:PATH.json`,
a file as committed at a git ref.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from harness.comparison.errors import ComparisonError
from harness.comparison.sources import git_show

SAVED_RUN = "[0-9][0-9][0-9][0-9]_*.json"
_HINT = ("Give the file `pytest --benchmark-json FILE` wrote, a folder of runs `--benchmark-autosave` saved "
         "(.benchmarks), or FOLDER@ID for one of them.")


@dataclass(frozen=True)
class BenchmarkTiming:
    """One benchmark's seconds per call: the median pytest-benchmark reports, and each round's time when
    the file was written with `--benchmark-save-data` (else empty)."""

    fullname: str
    median: float
    rounds: tuple[float, ...]


@dataclass(frozen=True)
class BenchmarkFile:
    source: str
    timings: list[BenchmarkTiming]
    machine_info: dict[str, Any]


class _Stats(BaseModel):
    median: float
    data: list[float] = Field(default_factory=list)


class _Benchmark(BaseModel):
    fullname: str
    stats: _Stats


class _Document(BaseModel):
    """The keys read from pytest-benchmark's JSON (format of pytest-benchmark 3 to 5); others are ignored."""

    machine_info: dict[str, Any]
    benchmarks: list[_Benchmark]


def is_benchmark_source(source: str) -> bool:
    """Whether `source` names pytest-benchmark JSON (a .json file, a folder, FOLDER@ID) rather than results."""
    path = Path(source)
    if path.exists():
        return path.is_dir() or path.suffix.lower() == ".json"
    folder, at, _ = source.rpartition("@")
    if at and Path(folder).is_dir():
        return True
    return Path(source.partition(":")[2] or source).suffix.lower() == ".json"


def load_benchmark_file(source: str, repo: Path | None = None) -> BenchmarkFile:
    """The timings and machine of the pytest-benchmark file `source` names."""
    path = Path(source)
    folder, _, run_id = source.rpartition("@")
    if path.is_dir():
        path = _newest_saved_run(path)
    elif not path.exists() and folder and Path(folder).is_dir():
        path = _named_saved_run(Path(folder), run_id)
    elif not path.exists() and ":" in source:
        ref, _, inner = source.partition(":")
        return parse_benchmark_json(git_show(ref, inner, repo or Path.cwd()), source)
    elif not path.exists():
        raise ComparisonError(f"{source} does not exist", hint=_HINT)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ComparisonError(f"{path} cannot be read ({exc.strerror})", hint=_HINT) from None
    return parse_benchmark_json(data, str(path))


def parse_benchmark_json(data: bytes, source: str) -> BenchmarkFile:
    """A pytest-benchmark file's timings; a user error naming the first key that is missing or malformed."""
    if not data.strip():
        raise ComparisonError(f"{source} is empty", hint=_HINT)
    try:
        document = _Document.model_validate(json.loads(data))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ComparisonError(f"{source} is not a pytest-benchmark file: {_problem(exc)}", hint=_HINT) from None
    if not document.benchmarks:
        raise ComparisonError(f"{source} holds no benchmarks",
                              hint="Run pytest with --benchmark-only on tests that use the `benchmark` fixture.")
    twice = sorted(name for name, n in Counter(b.fullname for b in document.benchmarks).items() if n > 1)
    if twice:
        raise ComparisonError(f"{source} holds benchmark(s) {', '.join(twice)} more than once", hint=_HINT)
    timings = [BenchmarkTiming(b.fullname, b.stats.median, tuple(b.stats.data)) for b in document.benchmarks]
    return BenchmarkFile(source, timings, document.machine_info)


def _problem(exc: ValueError | UnicodeDecodeError) -> str:
    """The first problem pydantic found, as the key path it concerns (`benchmarks[0].stats.median`)."""
    if not isinstance(exc, ValidationError):
        return f"not JSON ({exc})"
    error = exc.errors()[0]
    key = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]).lstrip(".")
    if error["type"] == "missing":
        return f"it has no '{key}' key"
    if not key:
        return f"it holds {type(error['input']).__name__}, not a JSON object"
    return f"'{key}': {error['msg'].lower()}"


def _saved_runs(folder: Path) -> list[Path]:
    """The runs saved in `folder`, or in its machine subfolders (`.benchmarks/Linux-CPython-3.11-64bit/`)."""
    return sorted([*folder.glob(SAVED_RUN), *folder.glob(f"*/{SAVED_RUN}")])


def _newest_saved_run(folder: Path) -> Path:
    runs = _saved_runs(folder)
    if not runs:
        raise ComparisonError(f"{folder} holds no saved pytest-benchmark runs ({SAVED_RUN})", hint=_HINT)
    return max(runs, key=lambda path: (_saved_at(path), path.name))


def _saved_at(path: Path) -> str:
    """The ISO time pytest-benchmark stamped the run with (comparable as text: always UTC, one format)."""
    try:
        stamp = json.loads(path.read_bytes()).get("datetime")
    except (OSError, ValueError, AttributeError):
        stamp = None
    if not isinstance(stamp, str):
        raise ComparisonError(f"{path} has no 'datetime' key, so the newest run is unknown",
                              hint="Name the run: FOLDER@ID or its file.")
    return stamp


def _named_saved_run(folder: Path, run_id: str) -> Path:
    runs = _saved_runs(folder)
    matches = [path for path in runs if path.name.startswith(run_id)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(str(path.relative_to(folder)) for path in runs) or "none"
    problem = "matches several saved runs" if matches else "matches no saved run"
    raise ComparisonError(f"{run_id!r} {problem} in {folder}", hint=f"Saved runs: {known}.")
