"""`harness reproduce`: run a sample of a report's stored runs again and say how closely each came back.

A stored run is a claim that its run key gives its numbers. Re-running a random sample of them (stratified by
method, so that every method is drawn before any is drawn twice) into a scratch store, with a scratch model
cache so that trained models are trained again, tests that claim: each sampled run is *exact* (every metric
bitwise equal), *within* (each differing metric inside the 95 % prediction interval of one new seed around the
cell's stored seeds, or apart only at float-noise scale, 1e-6 relative), *outside*, or *failed*; and the
environments the two were made in are compared, so a difference can be put down to a numerics fingerprint, a
package version or the code.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from functools import partial
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from statistics import fmean, stdev
from typing import Any

import numpy as np

from harness.comparison.classify import NUMERICAL_NOISE
from harness.curve_metrics import with_curve_metrics
from harness.environment import environment
from harness.errors import HarnessError
from harness.model_cache import CACHE_ENV
from harness.record_json import RecordJson
from harness.registry import metrics as metric_registry
from harness.reporting.model import ReportData
from harness.runner import RunOptions, run_suite
from harness.store import Store

REPRODUCTION_FILE = "reproduce.json"  # beside a report's runs.csv; `harness report` cites it in the footer
PREDICTION_LEVEL = 0.95
_COMPARED_ENVIRONMENT = ("python", "harness", "git_sha", "git_dirty", "hardware_fingerprint", "numerics_fingerprint")


class Outcome(StrEnum):
    """How a sampled run came back, best first."""

    EXACT = "exact"
    WITHIN = "within"
    OUTSIDE = "outside"
    FAILED = "failed"


@dataclass(frozen=True)
class ReproducedRun:
    method: str
    dataset: str
    seed: int
    stored_run_id: str
    new_run_id: str
    outcome: Outcome
    differences: dict[str, str] = field(default_factory=dict)  # metric -> "stored -> new (interval)"


@dataclass(frozen=True)
class Reproduction:
    suite: str
    sample: int
    sample_seed: int
    date: str
    runs: list[ReproducedRun]
    environment_differences: list[str]  # "numerics_fingerprint: ae14436847a4 -> 169c9c1bb621", ...
    stored_fingerprints: list[str]  # "numerics <fp>", or "hardware <fp>" for runs recorded before numerics were
    new_fingerprint: str  # "numerics <fp> (hardware <fp>)"

    def counts(self) -> dict[str, int]:
        return {outcome.value: sum(run.outcome is outcome for run in self.runs) for outcome in Outcome}

    def methods_by_outcome(self) -> dict[str, list[str]]:
        """Each outcome's methods, a method under its worst outcome."""
        worst: dict[str, Outcome] = {}
        order = list(Outcome)
        for run in self.runs:
            if run.method not in worst or order.index(run.outcome) > order.index(worst[run.method]):
                worst[run.method] = run.outcome
        return {outcome.value: sorted(m for m, o in worst.items() if o is outcome) for outcome in Outcome}

    def as_json(self) -> dict[str, Any]:
        return asdict(self) | {"counts": self.counts()}

    def footer(self, run_ids: set[str]) -> str:
        """The report footer's sentence, or "" when none of the sampled runs is among the report's `run_ids`
        (the report was regenerated since)."""
        if not any(run.stored_run_id in run_ids for run in self.runs):
            return ""
        by_outcome = "; ".join(f"{outcome}: {', '.join(methods)}" for outcome, methods
                               in self.methods_by_outcome().items() if methods)
        return (f"reproduced {len(self.runs)} sampled runs on {self.date} (harness reproduce; stored on "
                f"{' + '.join(self.stored_fingerprints)}, re-run on {self.new_fingerprint}): {by_outcome}")


def reproduce(suite_path: Path, records: list[RecordJson], sample: int, sample_seed: int = 0,
              data_root: Path | None = None, jobs: int = 1, scratch: Path | None = None,
              plugins: tuple[str, ...] = (), machine_metrics: frozenset[str] = frozenset()) -> Reproduction:
    """Run `sample` of the suite's stored `records` again (a report's runs, `harness.reporting.load_report`);
    `machine_metrics` (see `machine_metrics`) measure the machine and are not compared."""
    ok = [r for r in records if r["status"] == "ok"]
    drawn = stratified_sample(ok, sample, sample_seed)
    with _scratch(scratch) as folder, _model_cache(folder / "models"):
        options = RunOptions(store=folder / "reproduce.sqlite", jobs=jobs, data_root=data_root, plugins=plugins,
                             only=frozenset(r["run_key"] for r in drawn))
        suite = run_suite(suite_path, options).suite
        with Store(options.store, read_only=True) as store:  # with the curve metrics a report derives, as stored
            again = {r["run_key"]: r for r in with_curve_metrics(suite, store.records(), store.path)}
    cells = _seed_values(ok)
    runs = [compare_run(stored, again.get(stored["run_key"]), cells, machine_metrics) for stored in drawn]
    new_environment = next((again[r["run_key"]]["environment"] for r in drawn if r["run_key"] in again),
                           environment())
    return Reproduction(
        suite=suite.suite, sample=sample, sample_seed=sample_seed, date=datetime.now(timezone.utc).date().isoformat(),
        runs=runs,
        environment_differences=_environment_differences([r.get("environment", {}) for r in drawn], new_environment),
        stored_fingerprints=sorted({_fingerprint(r.get("environment", {})) for r in drawn}),
        new_fingerprint=f"{_fingerprint(new_environment)} (hardware {new_environment['hardware_fingerprint']})")


def machine_metrics(report: ReportData) -> frozenset[str]:
    """The report's metrics that measure the machine, not the method: hardware figures (memory, time) and wall times
    a run measured itself (`Metric.timing`). Another machine, or load, moves them: a reproduction leaves them out."""
    suite = report.suite
    timings = {name for name in suite.metrics if metric_registry.get(name, suite.family).timing}
    return frozenset(name for name, info in report.metrics.items() if info.kind == "hardware") | timings


def stratified_sample(records: list[RecordJson], n: int, seed: int) -> list[RecordJson]:
    """`n` records drawn without replacement, the methods taken in turn (in a random order) so that each is drawn
    before any is drawn twice; within a method, uniformly."""
    rng = np.random.default_rng(seed)
    by_method: dict[str, list[RecordJson]] = {}
    for record in records:
        by_method.setdefault(record["method"], []).append(record)
    queues = [list(rng.permutation(len(runs))) for runs in by_method.values()]
    pools = list(by_method.values())
    order = list(rng.permutation(len(pools)))
    drawn: list[RecordJson] = []
    while len(drawn) < n and any(queues):
        for index in order:
            if queues[index] and len(drawn) < n:
                drawn.append(pools[index][queues[index].pop()])
    return drawn


def _seed_values(records: list[RecordJson]) -> dict[tuple[str, str, str], list[float]]:
    """(method, dataset, metric) -> the stored seeds' values."""
    cells: dict[tuple[str, str, str], list[float]] = {}
    for record in records:
        for metric, value in record.get("metrics", {}).items():
            cells.setdefault((record["method"], record["dataset"], metric), []).append(float(value))
    return cells


def compare_run(stored: RecordJson, again: RecordJson | None,
                cells: Mapping[tuple[str, str, str], list[float]],
                machine_metrics: frozenset[str] = frozenset()) -> ReproducedRun:
    run = partial(ReproducedRun, method=stored["method"], dataset=stored["dataset"], seed=int(stored["seed"]),
                  stored_run_id=stored["run_id"], new_run_id=again["run_id"] if again else "")
    if again is None or again["status"] != "ok":
        error = again.get("error") if again else "not run: the suite no longer plans its run key"
        return run(outcome=Outcome.FAILED, differences={"status": str(error)[:200]})
    outcome, differences = Outcome.EXACT, {}
    for metric, value in stored.get("metrics", {}).items():
        if metric in machine_metrics:
            continue
        new = again["metrics"].get(metric, math.nan)
        if _same(float(value), new):
            continue
        interval = prediction_interval(cells.get((stored["method"], stored["dataset"], metric), []))
        inside = (interval is not None and interval[0] <= new <= interval[1]) or _float_noise(float(value), new)
        outcome = max(outcome, Outcome.WITHIN if inside else Outcome.OUTSIDE, key=list(Outcome).index)
        shown = f"[{interval[0]:.4g}, {interval[1]:.4g}]" if interval else "no interval: one stored seed"
        differences[metric] = f"{value:.6g} -> {new:.6g} ({shown})"
    return run(outcome=outcome, differences=differences)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _float_noise(a: float, b: float) -> bool:
    """Apart only in the last digits (another CPU's reduction order): within, even where the seeds never vary."""
    return math.isclose(a, b, rel_tol=NUMERICAL_NOISE, abs_tol=1e-12)


def prediction_interval(values: list[float]) -> tuple[float, float] | None:
    """Where one more seed falls with probability `PREDICTION_LEVEL`: mean +- t * sd * sqrt(1 + 1/n) over the
    stored seeds' finite values; None below two of them."""
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < 2:
        return None
    from scipy.special import stdtrit

    half = float(stdtrit(len(finite) - 1, (1 + PREDICTION_LEVEL) / 2)) * stdev(finite) * math.sqrt(1 + 1 / len(finite))
    return fmean(finite) - half, fmean(finite) + half


def _fingerprint(env: Mapping[str, Any]) -> str:
    numerics = env.get("numerics_fingerprint")
    return f"numerics {numerics}" if numerics else f"hardware {env.get('hardware_fingerprint') or 'unknown'}"


def _environment_differences(stored: list[Mapping[str, Any]], new: Mapping[str, Any]) -> list[str]:
    """`key: stored value(s) -> new value` for what a stored run recorded and differs now; packages one by one."""
    differences = []
    flat_new = _flat(new)
    for key in sorted(set().union(*(_flat(env) for env in stored)) if stored else ()):
        before = sorted({str(_flat(env).get(key)) for env in stored if key in _flat(env)})
        after = str(flat_new.get(key))
        if before and before != [after]:
            differences.append(f"{key}: {'/'.join(before)} -> {after}")
    return differences


def _flat(env: Mapping[str, Any]) -> dict[str, Any]:
    """The compared environment entries, packages as `packages.<name>`."""
    flat = {key: env[key] for key in _COMPARED_ENVIRONMENT if env.get(key) is not None}
    flat.update({f"packages.{name}": v for name, v in (env.get("packages") or {}).items()})
    return flat


@contextmanager
def _scratch(folder: Path | None) -> Iterator[Path]:
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="harness-reproduce-") as made:
        yield Path(made)


@contextmanager
def _model_cache(folder: Path) -> Iterator[None]:
    """Trained models go to `folder` meanwhile (the workers inherit it): a reproduction trains them again."""
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ[CACHE_ENV]
        else:
            os.environ[CACHE_ENV] = before


def write_reproduction(reproduction: Reproduction, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(reproduction.as_json(), indent=1, sort_keys=True) + "\n")


def read_reproduction(path: Path) -> Reproduction:
    """The result `write_reproduction` wrote; a `HarnessError` naming the file for one that cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("counts", None)
        data["runs"] = [ReproducedRun(**run | {"outcome": Outcome(run["outcome"])}) for run in data["runs"]]
        return Reproduction(**data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # bad JSON, a missing or unknown field
        raise HarnessError(f"not a harness reproduce result ({type(exc).__name__}: {exc})", file=path,
                           hint="Write it again with `harness reproduce SUITE --out FILE`, or remove it.") from None
