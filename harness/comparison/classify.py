"""Classify each (method, dataset, metric) cell of two sides: the outcome classes of `harness compare`.

A cell is judged in this order: present on one side only (new, missing); failing runs
appearing or disappearing (newly-failing, fixed); comparable at all (incomparable: a
hardware figure measured on other hardware, or no value on a side); then its change (of the mean
over seeds; of the median of a benchmark's rounds), which must exceed the rule's tolerance in the
metric's bad (good) direction to be a regression (improvement), and, when both sides have two
seeds (rounds) or more, be significant as well. A quality metric measured under another numerics fingerprint
(another vector ISA, BLAS or numeric package build) is judged the same way, but its change must also exceed the
baseline's own seed spread (the same run key may give other numbers there), and the cell says so; unless every
run's method declares itself bitwise everywhere (`harness.Determinism`), or the metric is deterministic.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from statistics import fmean, median
from typing import Literal

import numpy as np
import pandas as pd

from harness.comparison.criteria import Criterion
from harness.comparison.significance import change_test
from harness.contracts import Determinism
from harness.stats import CellStats, summarize


# Relative changes this small are no change: exports round-trip floats through text, and the same run on another
# CPU or BLAS build sums in another order (a Fréchet distance measured 1e-7 apart on AMD EPYC and Intel Xeon).
NUMERICAL_NOISE = 1e-6
# Across machines a quality cell's change must also leave this two-sided interval of the baseline's seed spread.
ACROSS_MACHINES_ALPHA = 0.001


class Status(StrEnum):
    """Outcome classes, most serious first (the order of every listing)."""

    NEWLY_FAILING = "newly-failing"
    REGRESSED = "regressed"
    INCOMPARABLE = "incomparable"
    MISSING = "missing"
    INSIGNIFICANT = "insignificant"
    FIXED = "fixed"
    IMPROVED = "improved"
    NEW = "new"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class CellComparison:
    """One cell's verdict with the figures behind it; NaN where a figure does not apply."""

    method: str
    dataset: str
    metric: str
    status: Status
    base: CellStats | None = None
    cand: CellStats | None = None
    tolerance: str = ""
    test: str = ""
    p_value: float = math.nan
    reason: str = ""

    @property
    def delta(self) -> float:
        return self.cand.mean - self.base.mean if self.base and self.cand else math.nan

    @property
    def relative(self) -> float:
        """Change relative to the base mean (NaN when the base mean is 0)."""
        if not (self.base and self.cand) or self.base.mean == 0:
            return math.nan
        return self.delta / abs(self.base.mean)


@dataclass(frozen=True)
class Comparison:
    """Every cell of two sides; `samples` says what a cell's values are drawn over: seeds (runs of a suite),
    rounds (a pytest-benchmark's timings), or one instruction count per benchmark (counts). `missing_fails`: a
    cell of the base missing from the candidate fails the gate (a benchmark dropped from a run), where results may
    drop a method on purpose."""

    base: str
    cand: str
    cells: list[CellComparison]
    failed_cand_runs: int = 0
    criteria: list[Criterion] = field(default_factory=list)
    samples: Literal["seeds", "rounds", "counts"] = "seeds"
    missing_fails: bool = False

    def counts(self) -> dict[Status, int]:
        return {status: sum(c.status is status for c in self.cells) for status in Status}


def compare_frames(base: pd.DataFrame, cand: pd.DataFrame, criteria: list[Criterion],
                   base_label: str = "base", cand_label: str = "candidate") -> Comparison:
    """Every cell of either side under every criterion, sorted by status, then method, dataset, metric."""
    pairs = list(dict.fromkeys(_pairs(base) + _pairs(cand)))
    base_groups, cand_groups = _groups(base), _groups(cand)
    cells = []
    for pair in pairs:
        for criterion in criteria:
            cell = _cell(pair, criterion, base_groups.get(pair), cand_groups.get(pair))
            if cell is not None:
                cells.append(cell)
    order = list(Status)
    cells.sort(key=lambda c: (order.index(c.status), c.method, c.dataset, c.metric))
    failed = int((cand["status"] != "ok").sum())
    return Comparison(base_label, cand_label, cells, failed, criteria)


def _pairs(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return list(dict.fromkeys(zip(frame["method"], frame["dataset"], strict=True)))


def _groups(frame: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    return {key: rows for key, rows in frame.groupby(["method", "dataset"], sort=False)}


def _measures(rows: pd.DataFrame | None, criterion: Criterion) -> bool:
    """Whether this side's runs of the cell were asked for (or report) the metric."""
    if rows is None:
        return False
    if criterion.column in rows and rows[criterion.column].notna().any():
        return True
    return not criterion.hardware and any(criterion.metric in names for names in rows["metric_names"])


def _cell(pair: tuple[str, str], criterion: Criterion, base: pd.DataFrame | None,
          cand: pd.DataFrame | None) -> CellComparison | None:
    in_base, in_cand = _measures(base, criterion), _measures(cand, criterion)
    if not (in_base or in_cand):
        return None
    base_values, cand_values = _values(base, criterion.column), _values(cand, criterion.column)
    verdict = partial(CellComparison, *pair, criterion.metric, tolerance=criterion.tolerance,
                      base=summarize(list(base_values.values())) if base_values else None,
                      cand=summarize(list(cand_values.values())) if cand_values else None)
    if not in_cand:
        return verdict(Status.MISSING)
    if not in_base:
        return verdict(Status.NEW)
    assert base is not None and cand is not None  # a side without rows measures nothing
    base_failed, cand_failed = _failures(base), _failures(cand)
    if cand_failed and not base_failed:
        return verdict(Status.NEWLY_FAILING, reason=f"{cand_failed} of {len(cand)} runs failed")
    if base_failed and not cand_failed:
        return verdict(Status.FIXED, reason=f"{base_failed} of {len(base)} base runs failed")
    if criterion.hardware and not _same_hardware(base, cand):
        return verdict(Status.INCOMPARABLE, reason="measured on other hardware")
    if not (base_values and cand_values):
        return verdict(Status.INCOMPARABLE, reason=f"no value in {'base' if not base_values else 'candidate'}")
    if not (criterion.hardware or criterion.deterministic or _same_numerics(base, cand)
            or _bitwise_everywhere(base, cand)):
        return _judge_across_machines(criterion, base_values, cand_values, verdict, _fingerprints(base, cand))
    return _judge(criterion, base_values, cand_values, verdict)


def _failures(rows: pd.DataFrame) -> int:
    return int((rows["status"] != "ok").sum())


def _values(rows: pd.DataFrame | None, column: str) -> dict[int, float]:
    """Seed -> value of the successful runs with a value: finite, or infinite (a `first_reaching` threshold never
    reached is +inf, worse than any step); NaN is no value."""
    if rows is None or column not in rows:
        return {}
    ok = rows[rows["status"] == "ok"]
    values = pd.to_numeric(ok[column], errors="coerce")
    return {int(seed): float(v) for seed, v in zip(ok["seed"], values, strict=True) if not math.isnan(v)}


def _same_hardware(base: pd.DataFrame, cand: pd.DataFrame) -> bool:
    """Both sides' successful runs share exactly one hardware fingerprint (what makes timings comparable)."""
    return _one_value(_successful(base, "hardware_fingerprint") + _successful(cand, "hardware_fingerprint"))


def _same_numerics(base: pd.DataFrame, cand: pd.DataFrame) -> bool:
    """Both sides' successful runs share exactly one numerics fingerprint, or, for runs recorded before it was, one
    hardware fingerprint: a deterministic method's runs then repeat bitwise."""
    return (_one_value(_successful(base, "numerics_fingerprint") + _successful(cand, "numerics_fingerprint"))
            or _same_hardware(base, cand))


def _bitwise_everywhere(base: pd.DataFrame, cand: pd.DataFrame) -> bool:
    """Every successful run on both sides is of a method that repeats bitwise on any machine."""
    return set(_successful(base, "determinism") + _successful(cand, "determinism")) == {Determinism.EVERYWHERE}


def _successful(rows: pd.DataFrame, column: str) -> list[str | None]:
    """`column` of the successful runs, None where a run has no value (an export from before it was recorded)."""
    ok = rows[rows["status"] == "ok"]
    if column not in ok:
        return [None] * len(ok)
    return [None if pd.isna(value) else str(value) for value in ok[column]]


def _one_value(values: list[str | None]) -> bool:
    return len(set(values)) == 1 and values[0] is not None


def _fingerprints(base: pd.DataFrame, cand: pd.DataFrame) -> str:
    """`base fingerprint(s) vs candidate fingerprint(s)` of the successful runs: numerics where recorded."""
    def side(rows: pd.DataFrame) -> str:
        pairs = zip(_successful(rows, "numerics_fingerprint"), _successful(rows, "hardware_fingerprint"), strict=True)
        return "+".join(sorted({numerics or f"hardware {hardware}" for numerics, hardware in pairs}))
    return f"{side(base)} vs {side(cand)}"


def seed_spread(base: list[float], candidates: int) -> float:
    """Half-width of the 99.9 % interval of a difference of two means, a baseline's (`base`, two finite values
    or more) and one of `candidates` values with the baseline's standard deviation: how far a re-run on other
    numerics may land from the baseline by seed luck alone."""
    from scipy.special import stdtrit  # the t quantile, without importing scipy.stats

    return float(stdtrit(len(base) - 1, 1 - ACROSS_MACHINES_ALPHA / 2) * np.std(base, ddof=1)
                 * math.sqrt(1 / len(base) + 1 / candidates))


def _judge_across_machines(criterion: Criterion, base: dict[int, float], cand: dict[int, float],
                           verdict: Callable[..., CellComparison], machines: str) -> CellComparison:
    """A quality cell measured on other machines: the same run key may give other numbers there (AVX-512 and
    AVX2 kernels reduce in other orders, and a trained model follows), so a change counts only beyond the
    baseline's own seed spread as well as the rule: the 99.9 % interval of a difference of two means with the
    baseline's standard deviation. One baseline seed gives no spread: a changed cell is incomparable, and says so.
    A metric registered as deterministic (analytic memory, say) is judged as on one machine."""
    if math.isclose(fmean(base.values()), fmean(cand.values()), rel_tol=NUMERICAL_NOISE, abs_tol=1e-12):
        return verdict(Status.UNCHANGED)
    finite = [v for v in base.values() if math.isfinite(v)]
    if len(finite) < 2:
        return verdict(Status.INCOMPARABLE, reason=f"other numerics ({machines}) and a single baseline seed: no "
                                                   "seed spread to judge the change by")
    spread = seed_spread(finite, len(cand))
    note = f"other numerics ({machines}): judged beyond the baseline's seed spread too (±{spread:.3g}, 99.9 %)"
    return _judge(criterion, base, cand, partial(verdict, reason=note), spread)


def _judge(criterion: Criterion, base: dict[int, float], cand: dict[int, float],
           verdict: Callable[..., CellComparison], spread: float = 0.0) -> CellComparison:
    rounds = criterion.samples == "rounds"
    center = median if rounds else fmean  # a round another job slowed moves a mean, not a median
    base_center, cand_center = center(base.values()), center(cand.values())
    if base_center == cand_center or math.isclose(base_center, cand_center, rel_tol=NUMERICAL_NOISE, abs_tol=1e-12):
        return verdict(Status.UNCHANGED)
    if math.isinf(base_center) or math.isinf(cand_center):
        return _judge_infinite(criterion, base_center, cand_center, verdict)
    beyond = _beyond_tolerance(criterion, base_center, cand_center)
    if beyond is None:
        return verdict(Status.INCOMPARABLE, reason="max_ratio needs positive means")
    if not beyond or abs(cand_center - base_center) <= spread:
        return verdict(Status.UNCHANGED)
    sign = 1.0 if criterion.higher_is_better else -1.0
    improved = sign * (cand_center - base_center) > 0
    direction = Status.IMPROVED if improved else Status.REGRESSED
    if len(base) < 2 or len(cand) < 2:
        return verdict(direction, test="none (n=1: tolerance alone)")
    better, worse = (cand, base) if improved else (base, cand)
    test = change_test(better, worse, criterion.higher_is_better, paired=not rounds, log_scale=rounds)
    return verdict(direction if test.significant else Status.INSIGNIFICANT, test=test.test, p_value=test.p_value)


def _judge_infinite(criterion: Criterion, base: float, cand: float,
                    verdict: Callable[..., CellComparison]) -> CellComparison:
    """A side whose center is infinite (a threshold never reached on some seed) against another: no tolerance or
    test applies, the infinity is beyond any finite value in its direction."""
    sign = 1.0 if criterion.higher_is_better else -1.0
    improved = sign * (cand - base) > 0
    side = "candidate" if math.isinf(cand) else "base"
    return verdict(Status.IMPROVED if improved else Status.REGRESSED,
                   test=f"none: an infinite value in the {side} (a threshold never reached) is beyond any finite one")


def _beyond_tolerance(criterion: Criterion, base: float, cand: float) -> bool | None:
    """Whether the change exceeds the rule either way; None when a ratio is meaningless."""
    rule = criterion.rule
    if rule.max_ratio is None:
        assert rule.max_drop is not None  # a rule sets exactly one of them
        return abs(cand - base) > rule.max_drop
    if base <= 0 or cand <= 0:
        return None
    return max(cand / base, base / cand) > rule.max_ratio
