"""Machine-checked paper claims: each gets a verdict, the statistic behind it, and its run ids.

- `best: X` — X has the best mean on every dataset (or the named one), and beats the
  runner-up there in a paired test over matching seeds (Wilcoxon and t, one-sided, 5%).
- `better: A, than: B` — A beats B in a paired test over all matching (dataset, seed) pairs.
A claim whose methods, datasets or metric have no measured runs is "not measurable here".
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

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


def _paired(own: "Cell", rival: "Cell", higher: bool):  # noqa: ANN202
    shared = sorted(set(own.seeds) & set(rival.seeds))
    return paired_test([own.values[own.seeds.index(s)] for s in shared],
                       [rival.values[rival.seeds.index(s)] for s in shared], higher)


def _finite_or_worst(value: float, higher: bool) -> float:
    """NaN never ranks best."""
    if math.isfinite(value):
        return value
    return -math.inf if higher else math.inf
