"""Cell provenance: the runs behind one cell of a suite's report, and the arithmetic from them to the cell.

`harness explain` and the site's explain pages read this. Nothing here recomputes a statistic: the cell is the
report's own (`ReportData.cells`, summarised by `harness.stats.summarize` in `harness.reporting.build`), its text
the tables' (`layout.format_cell`); the runs are the report's records. A reader can check the table by hand
from what this shows, and a statistic that changed in the report changes here with it.
"""
from __future__ import annotations

import difflib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.record_json import RecordJson
from harness.reporting.layout import AUTO_CELL, table
from harness.reporting.model import Cell, MetricInfo, ReportData
from harness.run_folders import stored_file
from harness.stats import t_quantile_975

NOT_IN_EXPORT = "not in an export"


@dataclass(frozen=True)
class RunProvenance:
    """One run behind a cell: where, how and with what it ran, and what it measured."""

    run_id: str
    seed: int
    status: str
    error: str
    git_sha: str | None
    git_dirty: bool | None
    hardware_fingerprint: str | None
    numerics_fingerprint: str | None
    determinism: str | None
    params: dict[str, Any]
    predictions: str  # the file, "none recorded", or NOT_IN_EXPORT (an export keeps no predictions)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class MetricArithmetic:
    """One metric's cell for the method and dataset, as the report computed it, with its table text."""

    info: MetricInfo
    cell: Cell
    text: str
    interval: str  # "t" (Student) or "bootstrap" (percentile), the report's `--interval`
    template: str  # the suite's cell format the text follows


@dataclass(frozen=True)
class Explanation:
    suite: str
    method: str
    dataset: str
    selection: str  # how the report matched runs to the suite (`Provenance.selection`)
    runs: tuple[RunProvenance, ...]  # every run behind the cell, failed ones included, by seed
    metrics: tuple[MetricArithmetic, ...]


def explain(data: ReportData, method: str, dataset: str, metrics: Sequence[str] = (),
            store: Path | None = None) -> Explanation:
    """The runs behind `method` x `dataset` in `data` and each of `metrics` (default: the quality metrics).

    `store` is the store the records came from, so that their predictions files are named by their path.
    An unknown name is a `HarnessError` with the names it could have meant.
    """
    check_name("method", method, data.methods)
    check_name("dataset", dataset, data.datasets)
    for name in metrics:
        check_name("metric", name, tuple(data.metrics))
    records = sorted((r for r in data.records if r["method"] == method and r["dataset"] == dataset),
                     key=lambda r: (r["seed"], r["status"] != "ok"))
    if not records:
        raise HarnessError(f"{method} was never run on {dataset} in suite '{data.suite.suite}'",
                           hint="Its cell is '—' in the report; `harness run` the suite to fill it.")
    arithmetic = []
    for name in metrics or data.quality_metrics():
        cell = data.cell(method, dataset, name)
        if cell is None:  # a figure of `report.measures` this method never records
            recorded = ", ".join(m for m in data.metrics if data.cell(method, dataset, m))
            raise HarnessError(f"{method} records no '{name}' on {dataset}", field="METRIC",
                               hint=f"Its metrics: {recorded}.")
        board = table(data, name)  # the text and format the report's tables give this cell
        place = (method, dataset) if board.row_axis == "method" else (dataset, method)
        arithmetic.append(MetricArithmetic(data.metrics[name], cell, board.text(*place), data.interval,
                                           board.template))
    return Explanation(data.suite.suite, method, dataset, data.provenance.selection,
                       tuple(_run(r, store) for r in records), tuple(arithmetic))


def check_name(kind: str, name: str, known: Sequence[str]) -> None:
    """A name the report does not have is a user error naming the ones it may have meant (a grid's entry name
    means its variants, `cut` -> `cut[t=0.2]`), else every name it has."""
    if name in known:
        return
    close = [k for k in known if k.startswith(f"{name}[")] or difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = (f"Did you mean {' or '.join(repr(c) for c in close)}?" if close else "")
    raise HarnessError(f"no {kind} '{name}' in the report", field=kind.upper(),
                       hint=f"{hint} Its {kind}s: {', '.join(known)}.".strip())


def _run(record: RecordJson, store: Path | None) -> RunProvenance:
    environment = record.get("environment") or {}
    return RunProvenance(record["run_id"], record["seed"], record["status"], (record.get("error") or "").strip(),
                         environment.get("git_sha"), environment.get("git_dirty"),
                         environment.get("hardware_fingerprint"), environment.get("numerics_fingerprint"),
                         environment.get("determinism"), dict(record.get("params") or {}), _predictions(record, store))


def _predictions(record: RecordJson, store: Path | None) -> str:
    """A store's record names its predictions file relative to the store's folder; an export's has no such key."""
    if "predictions" not in record:
        return NOT_IN_EXPORT
    named = record["predictions"]
    if not named:
        return "none recorded"
    return str(stored_file(store, named)) if store is not None else f"{named} (in the store's folder)"


def explanation_text(explanation: Explanation) -> str:
    """What `harness explain` prints: what the runs share, what a run has of its own (its predictions file, an
    error), then each metric's arithmetic from the runs' values to the cell."""
    e = explanation
    failed = sum(not run.ok for run in e.runs)
    facts = [_facts(run) for run in e.runs]
    shared = [label for label in facts[0] if all(f[label] == facts[0][label] for f in facts)]
    lines = [f"suite {e.suite}: {e.method} on {e.dataset} (runs matched by {e.selection})", "",
             f"{len(e.runs)} run{'s' if len(e.runs) > 1 else ''} ({len(e.runs) - failed} ok, {failed} failed), "
             f"{'all ' if len(e.runs) > 1 else ''}with:"]
    lines += [f"  {label} {facts[0][label]}" for label in shared]
    own = []  # each run's value and status follow in the arithmetic; here only what differs between runs
    for run, fact in zip(e.runs, facts, strict=True):
        details = [f"{label} {text}" for label, text in fact.items() if label not in shared]
        details += [f"error {run.error.splitlines()[-1]}"] if run.error else []
        own += [f"  seed {run.seed}  run {run.run_id}  {run.status}  {' · '.join(details)}"] if details else []
    lines += ["each with its own:", *own] if own else []
    for metric in e.metrics:
        lines += ["", *arithmetic_lines(metric, e.runs)]
    return "\n".join(lines) + "\n"


def _facts(run: RunProvenance) -> dict[str, str]:
    """Where and how a run ran, as `explanation_text` prints it: label -> text."""
    dirty = {None: "state unknown", False: "clean", True: "uncommitted changes"}[run.git_dirty]
    return {"git": f"{(run.git_sha or 'unknown')[:10]} ({dirty})",
            "hardware": run.hardware_fingerprint or "not recorded",
            "numerics": run.numerics_fingerprint or "not recorded",
            "determinism": run.determinism or "not declared",
            "params": ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in sorted(run.params.items())) or "none",
            "predictions": run.predictions}


def arithmetic_lines(metric: MetricArithmetic, runs: Sequence[RunProvenance]) -> list[str]:
    """From the per-seed values to the cell: the values, their mean, the spread and the interval, as computed."""
    cell, stats = metric.cell, metric.cell.stats
    values = dict(zip(cell.run_ids, cell.values, strict=True))
    layout = "digits set by the interval" if metric.template == AUTO_CELL else f"the suite's format {metric.template!r}"
    lines = [f"{metric.info.label}: the cell reads {metric.text} ({layout})"]
    for run in runs:
        value = _number(values[run.run_id]) if run.run_id in values else f"{run.status}: counted, not averaged"
        lines.append(f"  seed {run.seed}  run {run.run_id}  {value}")
    finite = [v for v in cell.values if math.isfinite(v)]
    if stats.n_nonfinite:
        lines.append(f"  {stats.n_nonfinite} NaN value(s): counted apart, not averaged")
    if not finite:
        lines.append("  no finite value: no mean")
    else:
        lines.append(f"  mean = {_number(math.fsum(finite))} / {stats.n} = {_number(stats.mean)}")
        lines += _spread_lines(metric)
    if cell.failed_runs:
        seeds = ", ".join(map(str, cell.failed_seeds))
        lines.append(f"  {cell.failed_runs} run(s) did not finish (seed {seeds}): counted in the cell's text, "
                     "not averaged, and the cell is never ranked")
    return lines


def _spread_lines(metric: MetricArithmetic) -> list[str]:
    stats = metric.cell.stats
    if stats.n < 2:
        return ["  one value: no spread and no interval"]
    if stats.std == 0:
        return [f"  std = 0 (every value equal): the interval is the value, [{_number(stats.ci_low)}, "
                f"{_number(stats.ci_high)}]"]
    lines = [f"  std (n−1) = {_number(stats.std)}"]
    bounds = f"[{_number(stats.ci_low)}, {_number(stats.ci_high)}]"
    if metric.interval == "t":
        quantile, stderr = t_quantile_975(stats.n - 1), stats.std / math.sqrt(stats.n)
        lines.append(f"  95% CI (Student t) = mean ± t(0.975, {stats.n - 1}) · std/√{stats.n} = "
                     f"{_number(stats.mean)} ± {_number(quantile)} · {_number(stderr)} = "
                     f"{_number(stats.mean)} ± {_number(stats.ci95)} = {bounds}")
    else:
        lines.append(f"  95% CI (percentile bootstrap of the mean over seeds) = {bounds}, half-width "
                     f"{_number(stats.ci95)}")
    return lines


def _number(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else "NaN"


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    """`harness explain --json`: the same content, numbers unrounded (NaN as null, so any JSON reader parses it)."""
    e = explanation
    return {
        "suite": e.suite, "method": e.method, "dataset": e.dataset, "selection": e.selection,
        "runs": [{**run.__dict__} for run in e.runs],
        "metrics": [_metric_json(metric) for metric in e.metrics],
    }


def _metric_json(metric: MetricArithmetic) -> dict[str, Any]:
    cell, stats = metric.cell, metric.cell.stats
    return {
        "metric": metric.info.name, "higher_is_better": metric.info.higher_is_better, "unit": metric.info.unit,
        "kind": metric.info.kind, "text": metric.text, "template": metric.template, "interval": metric.interval,
        "seeds": list(cell.seeds), "run_ids": list(cell.run_ids), "values": [_finite(v) for v in cell.values],
        "mean": _finite(stats.mean), "std": _finite(stats.std), "n": stats.n, "ci_low": _finite(stats.ci_low),
        "ci_high": _finite(stats.ci_high), "ci95": _finite(stats.ci95), "n_nonfinite": stats.n_nonfinite,
        "failed_runs": cell.failed_runs, "failed_seeds": list(cell.failed_seeds),
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
