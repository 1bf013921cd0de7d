"""Machine-checked paper claims: each gets a verdict, the statistic behind it, and its run ids.

- `best: X` — X has the best mean on every dataset (or the named one), and beats the
  runner-up there in a paired test over matching seeds (Wilcoxon and t, one-sided, 5%).
- `better: A, than: B` — A beats B in a paired test over all matching (dataset, seed) pairs.
- `better: A, than: B, at_matched: X` — the same at equal X (e.g. density): per (dataset, seed), each
  variant of A against B's variants' curve linearly interpolated at A's X (never extrapolated),
  averaged over A's variants in range, so each seed is one pair.
A claim whose methods, datasets or metric have no measured runs is "not measurable here".
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from harness.stats import paired_test

if TYPE_CHECKING:
    from harness.reporting.model import Cell, ClaimResult, ReportData


def check_claims(data: "ReportData") -> list["ClaimResult"]:
    return [_check(data, claim.text, claim.check) for claim in data.suite.claims]


def _check(data: "ReportData", text: str, check) -> "ClaimResult":  # noqa: ANN001
    from harness.reporting.model import ClaimResult

    info = data.metrics.get(check.metric)
    datasets = [check.dataset] if check.dataset else list(data.datasets)
    if info is None:
        return ClaimResult(text, "not measurable here", f"metric '{check.metric}' was not measured", ())
    if check.best is not None:
        return _check_best(data, text, check.best, check.metric, datasets, info.higher_is_better)
    if check.at_matched is not None:
        return _check_matched(data, text, check.better, check.than, check.metric, check.at_matched, datasets,
                              info.higher_is_better)
    return _check_better(data, text, check.better, check.than, check.metric, datasets, info.higher_is_better)


def _variants(data: "ReportData", method: str) -> list[str]:
    """A suite method name stands for all its grid variants."""
    return [m for m in data.methods if m == method or m.startswith(method + "[")]


def _check_best(data: "ReportData", text: str, method: str, metric: str, datasets: list[str],
                higher: bool) -> "ClaimResult":
    from harness.reporting.model import ClaimResult

    sign = 1 if higher else -1
    notes, run_ids, verdicts = [], [], []
    for dataset in datasets:
        cells = [c for m in data.methods if (c := data.cell(m, dataset, metric)) and c.stats.n > 0]
        mine = [c for c in cells if c.method in _variants(data, method)]
        if not mine:
            return ClaimResult(text, "not measurable here", f"no measured runs of '{method}' on '{dataset}'", ())
        own = max(mine, key=lambda c: sign * _finite_or_worst(c.stats.mean, higher))
        rivals = [c for c in cells if c.method not in _variants(data, method)]
        run_ids += list(own.run_ids)
        if not rivals:
            return ClaimResult(text, "not measurable here", f"no rival measured on '{dataset}'", tuple(run_ids))
        runner_up = max(rivals, key=lambda c: sign * _finite_or_worst(c.stats.mean, higher))
        run_ids += list(runner_up.run_ids)
        is_best = math.isfinite(own.stats.mean) and sign * (own.stats.mean - _finite_or_worst(runner_up.stats.mean, higher)) > 0
        test = _paired(own, runner_up, higher)
        verdicts.append("fail" if not is_best else "pass" if test.significant() else "not significant")
        notes.append(f"{dataset}: {own.method} {own.stats.mean:.2f} vs {runner_up.method} {runner_up.stats.mean:.2f}"
                     f" (n={test.n}, Wilcoxon p={test.wilcoxon_p:.3g}, t p={test.t_test_p:.3g})")
    verdict = "fail" if "fail" in verdicts else "not significant" if "not significant" in verdicts else "pass"
    return ClaimResult(text, verdict, "; ".join(notes), tuple(dict.fromkeys(run_ids)))


def _check_better(data: "ReportData", text: str, a: str, b: str, metric: str, datasets: list[str],
                  higher: bool) -> "ClaimResult":
    from harness.reporting.model import ClaimResult

    a_values, b_values, run_ids = [], [], []
    for dataset in datasets:
        for method_a in _variants(data, a):
            for method_b in _variants(data, b):
                cell_a, cell_b = data.cell(method_a, dataset, metric), data.cell(method_b, dataset, metric)
                if cell_a is None or cell_b is None:
                    continue
                shared = sorted(set(cell_a.seeds) & set(cell_b.seeds))
                a_values += [cell_a.values[cell_a.seeds.index(s)] for s in shared]
                b_values += [cell_b.values[cell_b.seeds.index(s)] for s in shared]
                run_ids += list(cell_a.run_ids) + list(cell_b.run_ids)
    if not a_values:
        return ClaimResult(text, "not measurable here", f"no matching measured seeds of '{a}' and '{b}'", ())
    test = paired_test(a_values, b_values, higher)
    verdict = "pass" if test.significant() else "fail" if test.mean_difference <= 0 else "not significant"
    statistic = (f"mean difference {test.mean_difference:+.3g} over {test.n} paired runs "
                 f"(Wilcoxon p={test.wilcoxon_p:.3g}, t p={test.t_test_p:.3g})")
    return ClaimResult(text, verdict, statistic, tuple(dict.fromkeys(run_ids)))


def _check_matched(data: "ReportData", text: str, a: str, b: str, metric: str, axis: str, datasets: list[str],
                   higher: bool) -> "ClaimResult":
    from harness.reporting.model import ClaimResult

    a_values, b_values, run_ids, outside = [], [], [], 0
    for dataset in datasets:
        seeds = sorted({s for m in _variants(data, a) + _variants(data, b)
                        if (c := data.cell(m, dataset, metric)) for s in c.seeds})
        for seed in seeds:
            own, rival = _points(data, a, dataset, metric, axis, seed), _points(data, b, dataset, metric, axis, seed)
            if not own or len(rival) < 2:
                continue
            xs, ys = zip(*sorted((x, y) for x, y, _ in rival))
            inside = [(x, y, r) for x, y, r in own if xs[0] <= x <= xs[-1]]
            outside += len(own) - len(inside)
            if not inside:
                continue
            a_values.append(float(np.mean([y for _, y, _ in inside])))
            b_values.append(float(np.mean([np.interp(x, xs, ys) for x, _, _ in inside])))
            run_ids += [r for _, _, r in inside] + [r for _, _, r in rival]
    if not a_values:
        return ClaimResult(text, "not measurable here", f"no variant of '{a}' lies within the {axis} range of "
                           f"'{b}''s variants at a matching seed", ())
    test = paired_test(a_values, b_values, higher)
    verdict = "pass" if test.significant() else "fail" if test.mean_difference <= 0 else "not significant"
    statistic = (f"at matched {axis}: mean difference {test.mean_difference:+.3g} over {test.n} (dataset, seed) pairs "
                 f"(Wilcoxon p={test.wilcoxon_p:.3g}, t p={test.t_test_p:.3g}); {outside} point(s) of '{a}' outside "
                 f"'{b}''s {axis} range left out")
    return ClaimResult(text, verdict, statistic, tuple(dict.fromkeys(run_ids)))


def _points(data: "ReportData", method: str, dataset: str, metric: str, axis: str,
            seed: int) -> list[tuple[float, float, str]]:
    """(axis value, metric value, run id) of each variant of `method` measured at `seed`, finite only."""
    points = []
    for variant in _variants(data, method):
        y_cell, x_cell = data.cell(variant, dataset, metric), data.cell(variant, dataset, axis)
        if y_cell is None or x_cell is None or seed not in y_cell.seeds or seed not in x_cell.seeds:
            continue
        x, y = x_cell.values[x_cell.seeds.index(seed)], y_cell.values[y_cell.seeds.index(seed)]
        if math.isfinite(x) and math.isfinite(y):
            points.append((x, y, y_cell.run_ids[y_cell.seeds.index(seed)]))
    return points


def _paired(own: "Cell", rival: "Cell", higher: bool):  # noqa: ANN202
    shared = sorted(set(own.seeds) & set(rival.seeds))
    return paired_test([own.values[own.seeds.index(s)] for s in shared],
                       [rival.values[rival.seeds.index(s)] for s in shared], higher)


def _finite_or_worst(value: float, higher: bool) -> float:
    """NaN never ranks best."""
    if math.isfinite(value):
        return value
    return -math.inf if higher else math.inf
