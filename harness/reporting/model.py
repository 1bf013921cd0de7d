"""What a report shows, computed once from the store: cells over seeds, cited numbers, claims, provenance.

Every renderer reads this model and nothing else, so the Markdown, LaTeX, CSV and HTML
outputs of one report always agree. A measured number carries the run ids behind it;
a cited number carries its source; the two are never merged into one value.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import __version__
from harness.contracts import Determinism
from harness.curves import Curve
from harness.environment import git_state
from harness.measure import HARDWARE_MEASURES
from harness.registry import methods as method_registry
from harness.registry import metrics as metric_registry
from harness.stats import CellStats, summarize
from harness.suite import Suite

if TYPE_CHECKING:
    from harness.reporting.aggregates import AggregateReport


@dataclass(frozen=True)
class MetricInfo:
    name: str
    higher_is_better: bool | None  # None: a descriptive figure, never ranked or claimed
    kind: str  # "quality" or "hardware"
    unit: str = ""
    deterministic: bool = False  # no sampling noise: claims compare it exactly, with no p-value
    description: str = ""

    @property
    def arrow(self) -> str:
        return "" if self.higher_is_better is None else "↑" if self.higher_is_better else "↓"

    @property
    def label(self) -> str:
        """'auprc ↑ [%]': name, direction and unit, as plots and tables title a metric."""
        return " ".join(filter(None, (self.name, self.arrow))) + (f" [{self.unit}]" if self.unit else "")


@dataclass(frozen=True)
class Cell:
    """One method x dataset x metric over seeds, with the runs that measured it."""

    method: str
    dataset: str
    metric: str
    stats: CellStats
    seeds: tuple[int, ...]
    values: tuple[float, ...]
    run_ids: tuple[str, ...]
    failed_runs: int = 0
    failed_seeds: tuple[int, ...] = ()   # the seeds of those failed runs
    bootstrap_stderr: float | None = None  # within-run, mean over seeds; never seed variance


@dataclass(frozen=True)
class CitedValue:
    """A paper's number beside ours: `measured` is our cell mean for the same key, if we have one."""

    method: str
    dataset: str
    metric: str
    value: float
    std: float | None
    source: str
    measured: float | None
    comparable: bool = True  # False: the paper counts another quantity, so no difference is taken
    ci95: float | None = None
    range: tuple[float, float] | None = None

    @property
    def delta(self) -> float | None:
        if not self.comparable or self.measured is None or not math.isfinite(self.measured):
            return None
        return self.measured - self.value

    @property
    def delta_text(self) -> str:
        if not self.comparable:
            return "not like for like"
        return "—" if self.delta is None else f"{self.delta:+.2f}"


@dataclass(frozen=True)
class ClaimResult:
    text: str
    verdict: str  # one of harness.reporting.claims.VERDICTS
    statistic: str
    run_ids: tuple[str, ...]


@dataclass(frozen=True)
class Failure:
    method: str
    dataset: str
    seed: int
    status: str
    error: str
    run_id: str


@dataclass(frozen=True)
class Provenance:
    suite_file: str
    suite_sha256: str
    harness_version: str
    git_shas: tuple[str, ...]  # commits the runs were measured at
    dirty_runs: int            # runs measured with uncommitted source changes
    hardware: tuple[str, ...]  # "fingerprint: cpu, gpus"
    date: str                  # UTC date of the newest run in the report
    runs: int
    selection: str = "run keys"  # how runs were matched to the suite: "run keys", or "names" without data files
    rendered_sha: str | None = None     # the commit the report was rendered from
    rendered_dirty: bool | None = None  # whether the source tree had uncommitted changes then (reports/ aside)
    nondeterministic: tuple[str, ...] = ()  # suite methods whose class says a repeated run may differ
    reproduction: str = ""  # `harness reproduce`'s result on a sample of these runs (`Reproduction.footer`)

    @property
    def rendered(self) -> str:
        """'0123456789 (clean)': the commit the report was rendered from and the tree's state then."""
        state = {None: "unknown state", False: "clean", True: "dirty"}[self.rendered_dirty]
        return f"{(self.rendered_sha or 'unknown')[:10]} ({state})"

    def line(self) -> str:
        shas = ", ".join(s[:10] for s in self.git_shas) or "unknown"
        dirty = f" ({self.dirty_runs} of them with uncommitted changes)" if self.dirty_runs else ""
        rendered = f"rendered at git {self.rendered}"
        return (f"suite {self.suite_file} (sha256 {self.suite_sha256[:12]}) · harness {self.harness_version} · "
                f"{self.runs} runs (matched by {self.selection}) at git {shas}{dirty} · {rendered} · "
                f"hardware {'; '.join(self.hardware) or 'unknown'} · {self.date}{self._nondeterministic()}"
                + (f" · {self.reproduction}" if self.reproduction else ""))

    def _nondeterministic(self) -> str:
        if not self.nondeterministic:
            return ""
        return f" · may differ when repeated under one run key: {', '.join(self.nondeterministic)}"


@dataclass(frozen=True)
class ReportData:
    suite: Suite
    methods: tuple[str, ...]
    datasets: tuple[str, ...]
    metrics: dict[str, MetricInfo]
    cells: dict[tuple[str, str, str], Cell]
    references: tuple[CitedValue, ...]
    claims: tuple[ClaimResult, ...]
    failures: tuple[Failure, ...]
    provenance: Provenance
    seeds: tuple[int, ...] = field(default_factory=tuple)
    interval: str = "t"  # "t" (Student) or "bootstrap" (percentile), over seeds
    variants: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # label -> (suite entry, params)
    records: tuple[dict[str, Any], ...] = ()  # the stored runs behind the report
    aggregates: AggregateReport | None = None  # across datasets, when the suite declares `aggregates:`
    curves: dict[str, dict[str, Curve]] = field(default_factory=dict)  # run id -> its learning curves, by name

    def cell(self, method: str, dataset: str, metric: str) -> Cell | None:
        return self.cells.get((method, dataset, metric))

    @property
    def main_metric(self) -> str:
        return self.suite.report.metric or self.suite.metrics[0]

    def quality_metrics(self) -> list[str]:
        return [m for m, info in self.metrics.items() if info.kind == "quality"]


def metric_infos(suite: Suite, records: list[dict[str, Any]]) -> dict[str, MetricInfo]:
    """The suite's quality metrics (direction from the registry) and curve metrics, then the hardware measures present
    (lower is better), then the method-recorded figures the report block asks for, with the direction
    and unit the method gave `ctx.record` (no direction: never ranked)."""
    infos = {}
    for name in suite.metrics:
        metric = metric_registry.get(name, suite.family)
        infos[name] = MetricInfo(name, metric.higher_is_better, metric.kind, metric.unit, metric.deterministic,
                                 metric.description)
    for name, derived in suite.curve_metrics.items():
        infos[name] = MetricInfo(name, derived.metric_higher_is_better, "quality",
                                 "step" if derived.kind == "first_reaching" else "", description=derived.description)
    present = {k for r in records for k in r.get("measurements", {})}
    for name, unit in HARDWARE_MEASURES.items():
        if name in present:
            infos[name] = MetricInfo(name, higher_is_better=False, kind="hardware", unit=unit)
    for name in suite.report.measures:
        if name in present and name not in infos:
            recorded = [r["measurements"][name] for r in records if name in r.get("measurements", {})]
            directions = {m.get("higher_is_better") for m in recorded}
            infos[name] = MetricInfo(name, directions.pop() if len(directions) == 1 else None, kind="hardware",
                                     unit=recorded[0].get("unit", ""))
    return infos


def build_report(suite: Suite, suite_path: Path, records: list[dict[str, Any]], methods: list[str],
                 interval: str = "t", bootstrap: dict[str, dict[str, float]] | None = None,
                 selection: str = "run keys") -> ReportData:
    """The report of `suite` from the stored `records` selected for it, methods in `methods` order.

    `bootstrap` maps run_id -> metric -> within-run bootstrap stderr, when computed.
    """
    from harness.reporting.aggregates import aggregate_report
    from harness.reporting.claims import check_claims

    infos = metric_infos(suite, records)
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in records:
        grouped.setdefault((record["method"], record["dataset"]), []).append(record)
    failures = tuple(
        Failure(r["method"], r["dataset"], r["seed"], r["status"], (r.get("error") or "").strip(), r["run_id"])
        for r in records if r["status"] != "ok"
    )
    cells = {}
    for (method, dataset), group in grouped.items():
        ok = sorted((r for r in group if r["status"] == "ok"), key=lambda r: r["seed"])
        for name, info in infos.items():
            if name in suite.report.measures and not any(name in r.get("measurements", {}) for r in ok):
                continue  # a figure this method does not record: no cell, not a NaN one
            values = tuple(_value(r, name, info.kind) for r in ok)
            cells[(method, dataset, name)] = Cell(
                method, dataset, name, summarize(values, interval), tuple(r["seed"] for r in ok), values,
                tuple(r["run_id"] for r in ok), failed_runs=len(group) - len(ok),
                failed_seeds=tuple(sorted(r["seed"] for r in group if r["status"] != "ok")),
                bootstrap_stderr=_mean_stderr(bootstrap, [r["run_id"] for r in ok], name))
    references = tuple(
        CitedValue(ref.method, ref.dataset, ref.metric, ref.value, ref.std, ref.source,
                   _measured_mean(cells, ref.method, ref.dataset, ref.metric), ref.comparable, ref.ci95, ref.range)
        for ref in suite.references
    )
    measured_seeds = tuple(sorted({r["seed"] for r in records}))
    data = ReportData(suite, tuple(methods), tuple(suite.datasets), infos, cells, references, (), failures,
                      _provenance(suite, suite_path, records, selection), measured_seeds, interval,
                      {r["method"]: (r.get("method_entry") or r["method"], r.get("params") or {}) for r in records},
                      tuple(records))
    return ReportData(**{**data.__dict__, "claims": tuple(check_claims(data)), "aggregates": aggregate_report(data)})


def _value(record: dict[str, Any], name: str, kind: str) -> float:
    if kind == "hardware":
        return float(record.get("measurements", {}).get(name, {}).get("value", math.nan))
    value = record.get("metrics", {}).get(name)
    return math.nan if value is None else float(value)


def _mean_stderr(bootstrap: dict[str, dict[str, float]] | None, run_ids: list[str], metric: str) -> float | None:
    if not bootstrap:
        return None
    values = [bootstrap[r][metric] for r in run_ids if r in bootstrap and metric in bootstrap[r]]
    return float(sum(values) / len(values)) if values else None


def _measured_mean(cells: dict[tuple[str, str, str], Cell], method: str, dataset: str, metric: str) -> float | None:
    """Our mean for a cited key; a suite method name with a grid matches its only variant."""
    exact = cells.get((method, dataset, metric))
    if exact is not None:
        return exact.stats.mean
    variants = [c for (m, d, k), c in cells.items() if d == dataset and k == metric and m.startswith(method + "[")]
    return variants[0].stats.mean if len(variants) == 1 else None


def _provenance(suite: Suite, suite_path: Path, records: list[dict[str, Any]], selection: str) -> Provenance:
    rendered_sha, rendered_dirty = git_state()
    environments = [r.get("environment", {}) for r in records]
    hardware = {}
    for env in environments:
        hw = env.get("hardware") or {}
        if env.get("hardware_fingerprint") and hw:
            gpus = ", ".join(hw.get("gpus") or []) or "no GPU"
            machine = f"{hw.get('cpu', '?')} x{hw.get('cores', '?')}, {gpus}"
            hardware[env["hardware_fingerprint"]] = f"{env['hardware_fingerprint']}: {machine}"
        elif env.get("hardware_fingerprint"):  # an export keeps the fingerprint, not the description
            hardware.setdefault(env["hardware_fingerprint"], env["hardware_fingerprint"])
    finished = sorted(r["finished_at"] for r in records if r.get("finished_at"))
    return Provenance(
        suite_file=suite_path.name,
        suite_sha256=hashlib.sha256(suite_path.read_bytes()).hexdigest(),
        harness_version=__version__,
        git_shas=tuple(sorted({e["git_sha"] for e in environments if e.get("git_sha")})),
        dirty_runs=sum(bool(e.get("git_dirty")) for e in environments),
        hardware=tuple(hardware[k] for k in sorted(hardware)),
        date=finished[-1][:10] if finished else "run dates not recorded",
        runs=len(records),
        selection=selection,
        rendered_sha=rendered_sha,
        rendered_dirty=rendered_dirty,
        nondeterministic=_nondeterministic_methods(suite),
    )


def _nondeterministic_methods(suite: Suite) -> tuple[str, ...]:
    """The suite's methods whose implementation declares `determinism = Determinism.NO` (`harness.Method`)."""
    return tuple(name for name, entry in suite.methods.items() if entry.impl is not None
                 and method_registry.get(entry.impl, suite.family).determinism is Determinism.NO)
