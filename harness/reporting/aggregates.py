"""The report's aggregates over datasets: each method's normalised scores pooled across the suite's datasets
into the statistics its `aggregates:` block lists, with stratified-bootstrap intervals, and the suite's own
method's probability of improvement over each other method (`harness.aggregates` computes them).

Scores are min-max normalised per dataset with the block's bounds, `(x - low) / (high - low)`: `low` maps to
0 and `high` to 1, and for a lower-is-better metric `low` is the larger score, so normalised scores always
rise with quality. Each method draws its bootstrap from a generator seeded by the block's seed and its own
name, so adding a method to a suite leaves the other methods' intervals as they were.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from harness.aggregates import LOWER_IS_BETTER, TITLES, Estimate, aggregate_estimates, improvement_estimate
from harness.reporting.claim_sides import Unmeasurable, variants
from harness.reporting.model import ReportData
from harness.suite import Aggregates


@dataclass(frozen=True)
class MethodAggregates:
    """One method's statistics; none, with the reason, where it lacks runs on some dataset."""

    method: str
    estimates: dict[str, Estimate]
    missing: str = ""


@dataclass(frozen=True)
class Improvement:
    """P(method > rival) over the datasets; None, with the reason, where either lacks runs somewhere."""

    method: str
    rival: str
    estimate: Estimate | None
    missing: str = ""


@dataclass(frozen=True)
class AggregateReport:
    block: Aggregates
    datasets: tuple[str, ...]
    flipped: bool  # a lower-is-better metric, normalised so that higher is better
    rows: tuple[MethodAggregates, ...]
    improvements: tuple[Improvement, ...]

    @property
    def method_note(self) -> str:
        """How the numbers were made, in one paragraph of plain text for every renderer."""
        bounds = "; ".join(f"{d} {self.block.normalise[d].low:g} → 0, {self.block.normalise[d].high:g} → 1"
                           for d in self.datasets)
        flipped = (f" {self.block.metric} is lower-is-better, so each 'low' is its larger score and the normalised "
                   "scale is flipped: higher is better." if self.flipped else "")
        return (f"{self.block.metric} normalised per dataset, (x − low) / (high − low): {bounds}.{flipped} "
                f"rliable's aggregates (Agarwal et al., NeurIPS 2021) over {len(self.datasets)} datasets: mean and "
                "median of the per-dataset means, IQM (25%-trimmed mean of all runs pooled), optimality gap "
                f"(mean shortfall below γ = {self.block.gamma:g}, lower is better), P(X > Y) (Mann-Whitney U / nm "
                "per dataset, ties 1/2, averaged). 95% percentile intervals of a stratified bootstrap (runs "
                f"resampled within each dataset), {self.block.reps} draws, seed {self.block.seed}.")


def method_rng(block: Aggregates, method: str) -> np.random.Generator:
    """The bootstrap generator of one method: the block's seed and the method's name, nothing else."""
    return np.random.default_rng([block.seed, zlib.crc32(method.encode())])


def task_scores(data: ReportData, labels: dict[str, str]) -> list[np.ndarray]:
    """Per dataset, the normalised finite scores of the variant `labels[dataset]`; raises `Unmeasurable`."""
    block = data.suite.aggregates
    assert block is not None  # only suites with an `aggregates:` block get here
    scores = []
    for dataset, label in labels.items():
        cell = data.cell(label, dataset, block.metric)
        values = [v for v in cell.values if math.isfinite(v)] if cell else []
        if not values:
            raise Unmeasurable(f"no measured runs of '{label}' on '{dataset}'")
        scores.append(np.array([block.normalise[dataset].apply(v) for v in values]))
    return scores


def aggregate_report(data: ReportData) -> AggregateReport | None:
    """The report's aggregates, or None when the suite declares none."""
    block = data.suite.aggregates
    if block is None:
        return None
    rows = []
    for method in data.methods:
        try:
            scores = task_scores(data, dict.fromkeys(data.datasets, method))
        except Unmeasurable as exc:
            rows.append(MethodAggregates(method, {}, str(exc)))
            continue
        rows.append(MethodAggregates(method, aggregate_estimates(scores, block.statistics, block.reps,
                                                                 method_rng(block, method), block.gamma)))
    own = variants(data, block.method) if block.method else []
    improvements = tuple(_improvement(data, block, mine, rival) for mine in own
                         for rival in data.methods if rival not in own)
    higher = data.metrics[block.metric].higher_is_better
    return AggregateReport(block, data.datasets, higher is False, tuple(rows), improvements)


def _improvement(data: ReportData, block: Aggregates, method: str, rival: str) -> Improvement:
    try:
        x, y = (task_scores(data, dict.fromkeys(data.datasets, m)) for m in (method, rival))
    except Unmeasurable as exc:
        return Improvement(method, rival, None, str(exc))
    return Improvement(method, rival, improvement_estimate(x, y, block.reps, method_rng(block, method),
                                                           method_rng(block, rival)))


def interval_text(found: Estimate | None) -> str:
    """'0.612 [0.580, 0.641]', or '—' where nothing was measured."""
    if found is None:
        return "—"
    return f"{found.point:.3f} [{found.low:.3f}, {found.high:.3f}]"


def statistic_columns(report: AggregateReport) -> list[str]:
    """The statistics' titles, a shortfall marked lower-is-better."""
    return [TITLES[name] + (" ↓" if name in LOWER_IS_BETTER else " ↑") for name in report.block.statistics]


def statistic_rows(report: AggregateReport) -> list[tuple[str, list[str]]]:
    """(method, each statistic's text), in the report's method order; unmeasured methods say why."""
    rows = []
    for row in report.rows:
        cells = [interval_text(row.estimates.get(name)) for name in report.block.statistics]
        rows.append((row.method + (f" ({row.missing})" if row.missing else ""), cells))
    return rows


def improvement_rows(report: AggregateReport) -> list[tuple[str, str, str]]:
    """(method, rival, P(method > rival) text)."""
    return [(i.method, i.rival, interval_text(i.estimate) + (f" ({i.missing})" if i.missing else ""))
            for i in report.improvements]
