"""What is compared, in which direction, with which tolerance: one `Criterion` per metric.

Quality metrics (`metric.*` columns) are always compared; their direction comes from the
registry, found through the suite file when one is given, else through each run's
`metric_names`; a suite's curve metrics take the direction the suite declares (compare their exports
with the suite file). Without a rule a quality metric gets `max_drop: 0`: any drop counts, so
the significance test over seeds is the only gate (with one seed per side, any drop is a
regression; write a rule to allow for noise). Hardware figures (time, memory) depend on
the machine, so they are compared only when a rule names them, and only on one hardware; so are
the figures a suite's report lists under `measures` (e.g. prefill_ms), lower being better.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from harness.comparison.errors import ComparisonError
from harness.contracts import Metric
from harness.errors import RegistryError
from harness.measure import HARDWARE_MEASURES
from harness.registry import metrics as metric_registry
from harness.suite import RegressionRule, Suite

DEFAULT_MAX_DROP = 0.0


@dataclass(frozen=True)
class Criterion:
    """How one metric is judged: its column, direction, whether it is hardware-bound, and its rule.

    `samples` says what a cell's values are: `seeds`, a suite's runs, paired by seed and judged on their mean;
    or `rounds`, a benchmark's round times, which pair nothing and whose noise is a factor (another job
    slows a round by some fraction): judged on their median, and tested on their logs.
    """

    metric: str
    column: str
    higher_is_better: bool
    hardware: bool
    rule: RegressionRule
    samples: Literal["seeds", "rounds"] = "seeds"
    deterministic: bool = False  # the metric's registration says equal inputs give equal values (e.g. analytic)

    @property
    def tolerance(self) -> str:
        if self.rule.max_ratio is not None:
            return f"max_ratio {self.rule.max_ratio:g}"
        return f"max_drop {self.rule.max_drop:g}"


def criteria(frames: Sequence[pd.DataFrame], suite: Suite | None = None) -> list[Criterion]:
    """The criteria of every metric either side measured, plus the hardware figures the rules name."""
    rules = {rule.metric: rule for rule in (suite.regression.rules if suite else [])}
    registered = _registered_names(frames, suite)
    found: list[Criterion] = []
    derived = suite.curve_metrics if suite else {}
    for name, full in registered.items():
        deterministic = False
        if name in derived:  # a curve metric (`harness.curve_metrics`): a quality metric, its direction the suite's
            higher_is_better, hardware = derived[name].metric_higher_is_better, False
        else:
            metric = _registered_metric(name, full)
            higher_is_better, hardware = metric.higher_is_better, metric.kind == "hardware"
            deterministic = metric.deterministic
        if hardware and name not in rules:
            continue
        rule = rules.get(name, RegressionRule(metric=name, max_drop=DEFAULT_MAX_DROP))
        found.append(Criterion(name, f"metric.{name}", higher_is_better, hardware, rule, deterministic=deterministic))
    measures = [*HARDWARE_MEASURES, *(suite.report.measures if suite else [])]
    for name in measures:
        if name in rules and name not in registered:
            found.append(Criterion(name, f"measure.{name}", False, True, rules[name]))
    unknown = sorted(set(rules) - {c.metric for c in found})
    if unknown:
        known = ", ".join([*registered, *measures])
        raise ComparisonError(f"regression rule(s) name {', '.join(unknown)}, which no run measures",
                              field="regression.rules", hint=f"Rules can name: {known}.")
    return found


def _registered_names(frames: Iterable[pd.DataFrame], suite: Suite | None) -> dict[str, str]:
    """Suite metric name -> registered name, in first-seen order."""
    names: dict[str, str] = {}
    for frame in frames:
        for mapping in frame["metric_names"]:
            for name, full in mapping.items():
                names.setdefault(name, full)
        for column in frame.columns:
            if column.startswith("metric.") and frame[column].notna().any():  # all-empty: another suite's column
                names.setdefault(column.removeprefix("metric."), column.removeprefix("metric."))
    if suite is not None:
        for name in suite.metrics:
            if name in names:
                names[name] = metric_registry.resolve(name, suite.family)
    return names


def _registered_metric(name: str, full: str) -> Metric:
    try:
        return metric_registry.get(full)
    except RegistryError as exc:
        raise ComparisonError(f"metric '{name}' ({exc.message}), so its direction is unknown",
                              hint="Load the family that registers it with --plugin FILE.py.") from None
