"""What a report shows, built once from the stored runs (`harness.reporting.build`): cells over seeds, cited
numbers, claims, provenance.

Every renderer reads this model and nothing else, so the Markdown, LaTeX, CSV and HTML
outputs of one report always agree. A measured number carries the run ids behind it;
a cited number carries its source; the two are never merged into one value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.claim_registry import ClaimStanding
from harness.curves import Curve
from harness.record_json import RecordJson
from harness.stats import CellStats
from harness.suite import Suite

if TYPE_CHECKING:
    from harness.reporting.aggregates import AggregateReport
    from harness.reporting.rank_report import RankReport


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
    verdict: str  # one of harness.reporting.claim_sides.VERDICTS
    statistic: str
    run_ids: tuple[str, ...]
    registration: ClaimStanding = ClaimStanding()  # pre-registered, post hoc or unknown (`harness.claim_registry`)


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
    records: tuple[RecordJson, ...] = ()  # the stored runs behind the report
    aggregates: AggregateReport | None = None  # across datasets, when the suite declares `aggregates:`
    curves: dict[str, dict[str, Curve]] = field(default_factory=dict)  # run id -> its learning curves, by name
    ranks: RankReport | None = None  # the main metric's rank uncertainty and multi-dataset comparison

    def cell(self, method: str, dataset: str, metric: str) -> Cell | None:
        return self.cells.get((method, dataset, metric))

    @property
    def main_metric(self) -> str:
        return self.suite.report.metric or self.suite.metrics[0]

    def quality_metrics(self) -> list[str]:
        return [m for m, info in self.metrics.items() if info.kind == "quality"]
