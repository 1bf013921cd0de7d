"""Machine-checked paper claims: a verdict per claim, the per-dataset tests behind it, and its run ids.

A claim compares **one representative per method** on each dataset: a named variant
(`proxyattn[gamma=0.95]`), a method's only variant, or, for a grid, the variant with the best
mean of the claim's `select_by` validation figure. Grids are never crossed.

- `better: A, than: B`: pairs are A's and B's values at the same seed.
- `best: X`: X's representative against the runner-up, the rival (any variant) with the best mean.
- `better: A, than: B, at_matched: X`: per seed, each variant of A against B's variants' curve
  linearly interpolated at A's X (never extrapolated), averaged over A's variants in range: one pair per seed.

Each dataset gets its own one-sided exact Wilcoxon signed-rank test over its pairs (zero
differences dropped); the p-values are Holm-corrected over the claim's datasets. Each dataset's row also gives
the smallest effect its seeds detect with power 0.8 at the observed spread. A seed where a side's run
failed, or its curve never reached a `first_reaching` threshold (an infinite value), counts as that side's
loss, larger than any measured difference: the rank test sees it, and the verdict says how many there were. Verdicts:
*supported* (significant on every dataset), *contradicted* (significantly the other way on some
dataset), *undecidable at this n* (with these seeds even a clean sweep could not reach alpha),
*not significant*, *not measurable here* (nothing measured for it). A deterministic metric is
compared exactly, with no p-value. Each result is then marked pre-registered, post hoc or registration unknown
(`with_registration`, `harness.claim_registry`): whether the claim was stated before results existed.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from harness.claim_registry import ClaimRegistration, suite_standings
from harness.stats import ALPHA, holm, minimum_detectable_effect, paired_test, smallest_wilcoxon_p

from harness.reporting.aggregate_claims import check_aggregate_claim
from harness.reporting.claim_sides import (CONTRADICTED, NOT_MEASURABLE, NOT_SIGNIFICANT, SUPPORTED, UNDECIDABLE,
                                           Unmeasurable, observed, representative, variants)
from harness.reporting.model import ClaimResult

if TYPE_CHECKING:
    from harness.reporting.model import Cell, MetricInfo, ReportData
    from harness.suite import ClaimCheck, Suite

TEST_NOTE = (f"one-sided exact Wilcoxon signed-rank test over seeds per dataset (zero differences dropped), "
             f"Holm-corrected over the claim's datasets, alpha {ALPHA}; deterministic metrics are compared exactly")


AGGREGATE_TEST_NOTE = ("claims over an aggregate ('aggregate:'): the 95% stratified-bootstrap interval of the "
                       "difference across datasets (of P(X > Y) against 1/2), see the aggregates section")


def test_note(data: "ReportData") -> str:
    """How the report's claims are decided: the Wilcoxon rule, and the interval rule when a claim is aggregate."""
    if any(claim.check.aggregate is not None for claim in data.suite.claims):
        return f"{TEST_NOTE}; {AGGREGATE_TEST_NOTE}"
    return TEST_NOTE


@dataclass(frozen=True)
class Pairs:
    """One dataset's matched values of the claim's two sides, with the runs behind them."""

    dataset: str
    a_label: str
    b_label: str
    a_values: tuple[float, ...]   # a failed run's value is the worst one: -inf, or +inf where lower is better
    b_values: tuple[float, ...]
    run_ids: tuple[str, ...]
    a_failed: int = 0
    b_failed: int = 0


def check_claims(data: "ReportData") -> list["ClaimResult"]:
    return [check_claim(data, claim.text, claim.check) for claim in data.suite.claims]


def with_registration(claims: tuple["ClaimResult", ...], suite: "Suite",
                      registration: ClaimRegistration | None) -> tuple["ClaimResult", ...]:
    """`claims` (checked in `suite`'s order) marked pre-registered, post hoc or registration unknown."""
    return tuple(dataclasses.replace(result, registration=standing)
                 for result, standing in zip(claims, suite_standings(suite, registration), strict=True))


def check_claim(data: "ReportData", text: str, check: "ClaimCheck") -> "ClaimResult":
    info = data.metrics.get(check.metric)
    if info is None or info.higher_is_better is None:
        reason = "was not measured" if info is None else "has no direction to compare"
        return ClaimResult(text, NOT_MEASURABLE, f"metric '{check.metric}' {reason}", ())
    if check.aggregate is not None:
        return check_aggregate_claim(data, text, check)
    datasets = [d for d in ([check.dataset] if check.dataset else data.datasets) if _runs_on(data, check, d)]
    if not datasets:
        return ClaimResult(text, NOT_MEASURABLE, "its methods never ran on a common dataset", ())
    try:
        pairs = [_pairs(data, check, dataset, info.higher_is_better) for dataset in datasets]
    except Unmeasurable as exc:
        return ClaimResult(text, NOT_MEASURABLE, str(exc), ())
    run_ids = tuple(dict.fromkeys(r for p in pairs for r in p.run_ids))
    verdict, statistic = (_exact if info.deterministic else _tested)(pairs, info)
    return ClaimResult(text, verdict, statistic, run_ids)


def claim_differences(data: "ReportData", check: "ClaimCheck") -> dict[str, list[float]]:
    """Dataset -> the claim's finite per-seed gains (A over B, direction-adjusted), as its rank test pairs them:
    what `harness ci --claims` judges a claim by across machines. Empty where no rank test decides the claim (an
    aggregate claim, a deterministic metric, an undirected or unmeasured one)."""
    info = data.metrics.get(check.metric)
    if info is None or info.higher_is_better is None or info.deterministic or check.aggregate is not None:
        return {}
    datasets = [d for d in ([check.dataset] if check.dataset else data.datasets) if _runs_on(data, check, d)]
    try:
        return {d: _finite_differences(_pairs(data, check, d, info.higher_is_better), info.higher_is_better)
                for d in datasets}
    except Unmeasurable:
        return {}


def _runs_on(data: "ReportData", check: "ClaimCheck", dataset: str) -> bool:
    """Whether the claim applies to `dataset`: every method it names ran there (a suite's matrix may pair
    them elsewhere only), and the metric is defined there for one of them (NaN for all: not applicable)."""
    names = [n for n in (check.best, check.better, check.than) if n is not None]
    cells = [[c for v in variants(data, name) if (c := data.cell(v, dataset, check.metric))] for name in names]
    return all(cells) and any(observed(c) for side in cells for c in side)


def _pairs(data: "ReportData", check: "ClaimCheck", dataset: str, higher: bool) -> Pairs:
    if check.best is not None:
        return _best_pairs(data, check, dataset, higher)
    better, than = check.better, check.than
    assert better is not None and than is not None  # the check's schema: `best`, or `better` and `than`
    if check.at_matched is not None:
        return _matched_pairs(data, better, than, check.metric, check.at_matched, dataset)
    a = representative(data, better, dataset, check.metric, check.select_by)
    b = representative(data, than, dataset, check.metric, check.select_by)
    return _seed_pairs(data, a, b, dataset, check.metric, higher)


def _seed_pairs(data: "ReportData", a: str, b: str, dataset: str, metric: str, higher: bool) -> Pairs:
    """A's and B's outcomes at the seeds both have one; a failed run's outcome is the worst value."""
    cell_a, cell_b = data.cell(a, dataset, metric), data.cell(b, dataset, metric)
    outcomes_a, outcomes_b = _outcomes(cell_a, higher), _outcomes(cell_b, higher)
    shared = sorted(set(outcomes_a) & set(outcomes_b))
    if cell_a is None or cell_b is None or not shared:
        raise Unmeasurable(f"'{a}' and '{b}' share no measured seed on '{dataset}'")
    return Pairs(dataset, a, b, tuple(outcomes_a[s] for s in shared), tuple(outcomes_b[s] for s in shared),
                 tuple(cell_a.run_ids) + tuple(cell_b.run_ids),
                 sum(s in cell_a.failed_seeds for s in shared), sum(s in cell_b.failed_seeds for s in shared))


def _outcomes(cell: "Cell | None", higher: bool) -> dict[int, float]:
    """Seed -> value (NaN left out: the metric does not apply), a failed seed's being the worst possible."""
    if cell is None:
        return {}
    worst = -math.inf if higher else math.inf
    values = {seed: value for seed, value in zip(cell.seeds, cell.values, strict=True) if not math.isnan(value)}
    return {**values, **{seed: worst for seed in cell.failed_seeds}}


def _best_pairs(data: "ReportData", check: "ClaimCheck", dataset: str, higher: bool) -> Pairs:
    """X's representative against the rival with the best mean (the strongest rival: conservative).
    X's other grid variants are X, not rivals."""
    best = check.best
    assert best is not None  # `_pairs` sends only `best` checks here
    own = representative(data, best, dataset, check.metric, check.select_by)
    mine = set(variants(data, best.split("[", 1)[0]))
    rivals = [(_rank_value(c.stats.mean, higher), m) for m in data.methods
              if m not in mine and observed(c := data.cell(m, dataset, check.metric)) and c is not None]
    if not rivals:
        raise Unmeasurable(f"no rival of '{check.best}' measured on '{dataset}'")
    return _seed_pairs(data, own, max(rivals)[1], dataset, check.metric, higher)


def _rank_value(mean: float, higher: bool) -> float:
    """Direction-adjusted mean; NaN never ranks best."""
    return (mean if higher else -mean) if math.isfinite(mean) else -math.inf


def _matched_pairs(data: "ReportData", a: str, b: str, metric: str, axis: str, dataset: str) -> Pairs:
    a_values, b_values, run_ids = [], [], []
    seeds = sorted({s for m in variants(data, a) + variants(data, b)
                    if (c := data.cell(m, dataset, metric)) for s in c.seeds})
    for seed in seeds:
        own, rival = _points(data, a, dataset, metric, axis, seed), _points(data, b, dataset, metric, axis, seed)
        if not own or len(rival) < 2:
            continue
        xs, ys = zip(*sorted((x, y) for x, y, _ in rival), strict=True)
        inside = [(x, y, r) for x, y, r in own if xs[0] <= x <= xs[-1]]
        if not inside:
            continue
        a_values.append(float(np.mean([y for _, y, _ in inside])))
        b_values.append(float(np.mean([np.interp(x, xs, ys) for x, _, _ in inside])))
        run_ids += [r for _, _, r in inside] + [r for _, _, r in rival]
    if not a_values:
        raise Unmeasurable(f"no variant of '{a}' lies within the {axis} range of '{b}''s variants at a matching "
                           f"seed on '{dataset}'")
    return Pairs(dataset, f"{a} at matched {axis}", b, tuple(a_values), tuple(b_values), tuple(run_ids))


def _points(data: "ReportData", method: str, dataset: str, metric: str, axis: str,
            seed: int) -> list[tuple[float, float, str]]:
    """(axis value, metric value, run id) of each variant of `method` measured at `seed`, finite only."""
    points = []
    for variant in variants(data, method):
        y_cell, x_cell = data.cell(variant, dataset, metric), data.cell(variant, dataset, axis)
        if y_cell is None or x_cell is None or seed not in y_cell.seeds or seed not in x_cell.seeds:
            continue
        x, y = x_cell.values[x_cell.seeds.index(seed)], y_cell.values[y_cell.seeds.index(seed)]
        if math.isfinite(x) and math.isfinite(y):
            points.append((x, y, y_cell.run_ids[y_cell.seeds.index(seed)]))
    return points


def _tested(pairs: list[Pairs], info: "MetricInfo") -> tuple[str, str]:
    """Per-dataset Wilcoxon tests, Holm over datasets, combined into one verdict."""
    assert info.higher_is_better is not None  # `check_claim` leaves claims on undirected metrics unmeasurable
    tests = [paired_test(ranked_differences(p, info.higher_is_better), [0.0] * len(p.a_values)) for p in pairs]
    better, worse = holm([t.p_better for t in tests]), holm([t.p_worse for t in tests])
    floor = holm([smallest_wilcoxon_p(t.n) for t in tests])
    holds = sum(p < ALPHA for p in better)
    if any(p < ALPHA for p in worse):
        verdict = CONTRADICTED
    elif any(p >= ALPHA for p in floor):
        verdict = UNDECIDABLE
    else:
        verdict = SUPPORTED if holds == len(tests) else NOT_SIGNIFICANT
    details = [f"{p.dataset}: {p.a_label} vs {p.b_label}{_mean_difference(p, info.higher_is_better)} over {t.n} "
               f"seeds{_losses(p)}, p {t.p_better:.3g} (Holm {adjusted:.3g}), {_detectable(p, info, len(pairs))}"
               + (f", reversed p {t.p_worse:.3g} (Holm {reversed_:.3g})" if t.p_worse < ALPHA else "")
               for p, t, adjusted, reversed_ in zip(pairs, tests, better, worse, strict=True)]
    summary = f"holds on {holds} of {len(tests)} dataset(s)"
    if verdict == UNDECIDABLE:
        summary += (f"; the smallest reachable p, {min(floor):.3g} after Holm, is not below {ALPHA}: "
                    "more seeds are needed")
    return verdict, f"{summary}. " + "; ".join(details)


def ranked_differences(pairs: Pairs, higher: bool) -> list[float]:
    """A's gain over B per seed, direction-adjusted. An infinite side (a failed run, a threshold never reached)
    loses to any finite one by more than every finite difference, so a rank test counts it as the largest loss;
    two equal infinities tie."""
    sign = 1.0 if higher else -1.0
    raw = [sign * (a - b) if not (math.isinf(a) and a == b) else 0.0
           for a, b in zip(pairs.a_values, pairs.b_values, strict=True)]
    largest = max([abs(d) for d in raw if math.isfinite(d)], default=0.0)
    return [d if math.isfinite(d) else math.copysign(2 * largest + 1, d) for d in raw]


def _finite_differences(pairs: Pairs, higher: bool) -> list[float]:
    """A's gain over B at each seed where both sides have a finite value (no failure, no threshold never
    reached), direction-adjusted."""
    sign = 1.0 if higher else -1.0
    return [sign * (a - b) for a, b in zip(pairs.a_values, pairs.b_values, strict=True)
            if math.isfinite(a) and math.isfinite(b)]


def _mean_difference(pairs: Pairs, higher: bool) -> str:
    """', mean difference +x': the mean gain over the seeds where both sides have a finite value; nothing where no
    seed has (every pair decided by a failure or a threshold never reached)."""
    finite = _finite_differences(pairs, higher)
    return f", mean difference {float(np.mean(finite)):+.3g}" if finite else ""


def _detectable(pairs: Pairs, info: "MetricInfo", tests: int) -> str:
    """The smallest mean difference these seeds detect 80 % of the time at the observed spread of the finite
    differences (`harness.stats.minimum_detectable_effect`): what a 'not significant' verdict can rule out."""
    finite = _finite_differences(pairs, bool(info.higher_is_better))
    if math.isinf(minimum_detectable_effect(1.0, len(pairs.a_values), tests)):
        return "no effect detectable at this n"
    if len(finite) < 2:
        return "no spread to size a detectable effect by"  # the pairs were decided by failures or infinities
    effect = minimum_detectable_effect(float(np.std(finite, ddof=1)), len(pairs.a_values), tests)
    return f"detectable effect {effect:.3g}"


def _losses(pairs: Pairs) -> str:
    """How many seeds were decided by a failed run or a never-reached value, said in the claim's row."""
    notes = []
    for label, values, failed in ((pairs.a_label, pairs.a_values, pairs.a_failed),
                                  (pairs.b_label, pairs.b_values, pairs.b_failed)):
        never = sum(math.isinf(v) for v in values) - failed
        if failed:
            notes.append(f"{label} failed on {failed}")
        if never:
            notes.append(f"{label} never reached it on {never}")
    return f" ({'; '.join(notes)}: counted as losses)" if notes else ""


def _exact(pairs: list[Pairs], info: "MetricInfo") -> tuple[str, str]:
    """A deterministic metric: the values are compared as they are (seed means), no test."""
    sign = 1 if info.higher_is_better else -1
    differences = [sign * (float(np.mean(p.a_values)) - float(np.mean(p.b_values))) for p in pairs]
    if all(d > 0 for d in differences):
        verdict = SUPPORTED
    elif any(d < 0 for d in differences):
        verdict = CONTRADICTED
    else:
        verdict = NOT_SIGNIFICANT
    details = [f"{p.dataset}: {p.a_label} {np.mean(p.a_values):.4g} vs {p.b_label} {np.mean(p.b_values):.4g}"
               for p in pairs]
    holds = sum(d > 0 for d in differences)
    return verdict, (f"exact comparison of a deterministic metric (no p-value): holds on {holds} of "
                     f"{len(pairs)} dataset(s). " + "; ".join(details))
