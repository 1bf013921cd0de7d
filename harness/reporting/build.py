"""The report of a suite from its selected runs: cells, cited references, claims, aggregates and provenance.

`harness.reporting.load` selects the runs; this turns them into the `ReportData` (harness.reporting.model) every
renderer reads, checking the claims (`claims`) and the aggregates (`aggregates`) and ranking the methods
(`rank_report`) on the way.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

from harness import __version__
from harness.contracts import Determinism
from harness.environment import git_state
from harness.measure import HARDWARE_MEASURES
from harness.record_json import RecordJson
from harness.registry import methods as method_registry
from harness.registry import metrics as metric_registry
from harness.reporting.aggregates import aggregate_report
from harness.reporting.claims import check_claims
from harness.reporting.model import Cell, CitedValue, Failure, MetricInfo, Provenance, ReportData
from harness.reporting.rank_report import rank_report
from harness.stats import summarize
from harness.suite import Suite
from harness.suite_extends import resolve_extends
from harness.yaml_source import load_yaml


def metric_infos(suite: Suite, records: list[RecordJson]) -> dict[str, MetricInfo]:
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


def build_report(suite: Suite, suite_path: Path, records: list[RecordJson], methods: list[str],
                 interval: str = "t", bootstrap: dict[str, dict[str, float]] | None = None,
                 selection: str = "run keys") -> ReportData:
    """The report of `suite` from the stored `records` selected for it, methods in `methods` order.

    `bootstrap` maps run_id -> metric -> within-run bootstrap stderr, when computed.
    """
    infos = metric_infos(suite, records)
    grouped: dict[tuple[str, str], list[RecordJson]] = {}
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
    return ReportData(**{**data.__dict__, "claims": tuple(check_claims(data)), "aggregates": aggregate_report(data),
                         "ranks": rank_report(data)})


def _value(record: RecordJson, name: str, kind: str) -> float:
    if kind == "hardware":
        measured = record["measurements"].get(name)
        return math.nan if measured is None else float(measured["value"])
    value = record["metrics"].get(name)
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


def _suite_sha256(path: Path) -> str:
    """The hash of the suite file, and of the suites it extends after it (the report depends on them too)."""
    digest = hashlib.sha256(path.read_bytes())
    for base in resolve_extends(load_yaml(path)).sources:
        digest.update(base.read_bytes())
    return digest.hexdigest()


def _provenance(suite: Suite, suite_path: Path, records: list[RecordJson], selection: str) -> Provenance:
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
    finished = sorted(at for r in records if (at := r.get("finished_at")))
    return Provenance(
        suite_file=suite_path.name,
        suite_sha256=_suite_sha256(suite_path),
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
