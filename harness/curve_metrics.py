"""Metrics derived from learning curves (a suite's `curve_metrics`), added to a suite's runs as they are loaded.

Computed when a suite's runs are selected from a store (`harness.suite_runs.stored_selection`, which
`report`, `export --suite FILE`, `compare --suite FILE` and `ci` all use), never at run time: a derived
metric is a function of the stored curves, so declaring or changing one re-runs nothing and changes no
run key, and every consumer sees the same values. An export carries them as `metric.<name>` columns,
so a report rendered again from its `runs.csv`, or a baseline compared from it, keeps them.

Kinds (`harness.suite.CurveMetric`): `auc` by the trapezoid rule over the declared step range, its ends
linearly interpolated (NaN where the curve does not cover the range or holds a NaN in it); `at_step`,
the value linearly interpolated at a step (NaN outside the recorded range); `first_reaching`, the first
recorded step at which the curve reaches a threshold in its direction, infinite when it never does (a
NaN value never reaches). Paired claims drop a seed whose value is not finite (`harness.stats`), so a
claim on `first_reaching` wants a threshold both methods reach.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from harness.curves import Curve, read_curves
from harness.errors import DataError
from harness.record_json import RecordJson
from harness.run_folders import stored_file
from harness.suite import CurveMetric, Suite


def area_under_curve(curve: Curve, start: float | None = None, stop: float | None = None,
                     normalise: bool = False) -> float:
    """Trapezoid-rule area over [start, stop] (default: the recorded range); divided by its width with `normalise`."""
    steps, values = np.asarray(curve.steps), np.asarray(curve.values)
    low = steps[0] if start is None else start
    high = steps[-1] if stop is None else stop
    if not steps[0] <= low < high <= steps[-1]:
        return math.nan  # a range the curve does not cover (or a one-point curve) has no area to compare
    inside = (steps > low) & (steps < high)
    xs = np.concatenate([[low], steps[inside], [high]])
    ys = np.concatenate([[value_at_step(curve, low)], values[inside], [value_at_step(curve, high)]])
    area = float(np.trapezoid(ys, xs))
    return area / (high - low) if normalise else area


def value_at_step(curve: Curve, step: float) -> float:
    """The curve at `step`, linearly interpolated between its recorded neighbours; NaN outside its range."""
    steps, values = np.asarray(curve.steps), np.asarray(curve.values)
    if not steps[0] <= step <= steps[-1]:
        return math.nan
    exact = np.flatnonzero(steps == step)
    if exact.size:  # np.interp would mix a NaN neighbour into an exactly recorded value
        return float(values[exact[0]])
    return float(np.interp(step, steps, values))


def first_step_reaching(curve: Curve, threshold: float, higher_is_better: bool) -> float:
    """The first recorded step whose value is at or beyond `threshold` in the curve's direction; inf if none."""
    values = np.asarray(curve.values)
    with np.errstate(invalid="ignore"):
        reached = values >= threshold if higher_is_better else values <= threshold  # NaN never reaches
    hits = np.flatnonzero(reached)
    return float(curve.steps[hits[0]]) if hits.size else math.inf


def derived_value(curve: Curve, name: str, metric: CurveMetric) -> float:
    """The curve metric `name` of one run's `curve`."""
    if curve.higher_is_better is not None and curve.higher_is_better != metric.higher_is_better:
        raise DataError(f"curve '{curve.name}' was recorded with higher_is_better={curve.higher_is_better}, "
                        f"but the suite declares {metric.higher_is_better}",
                        field=f"curve_metrics.{name}.higher_is_better", hint="Declare the curve's own direction.")
    if metric.kind == "auc":
        return area_under_curve(curve, metric.start, metric.stop, metric.normalise)
    if metric.kind == "at_step":
        assert metric.step is not None  # `CurveMetric` requires it for this kind
        return value_at_step(curve, metric.step)
    assert metric.threshold is not None  # `CurveMetric` requires it for this kind
    return first_step_reaching(curve, metric.threshold, metric.higher_is_better)


def with_curve_metrics(suite: Suite, records: Iterable[RecordJson], store: Path) -> list[RecordJson]:
    """`records` (runs of `store`, as their JSON) with their suite's curve metrics added to each ok run's
    `metrics`; a run that did not record a metric's curve gets none (its cell shows no value)."""
    records = list(records)
    if not suite.curve_metrics:
        return records
    return [_with_derived(suite, record, store) if record.get("status") == "ok" and record.get("curves") else record
            for record in records]


def _with_derived(suite: Suite, record: RecordJson, store: Path) -> RecordJson:
    curves = read_curves(stored_file(store, record["curves"]))
    derived = {name: derived_value(curves[metric.curve], name, metric)
               for name, metric in suite.curve_metrics.items() if metric.curve in curves}
    return record | {"metrics": record.get("metrics", {}) | derived}
