"""Claims stated over an aggregate across datasets (`check: {aggregate: iqm, ...}`), decided by intervals.

`better: A, than: B` compares A's aggregate of the normalised scores with B's: the claim's
representative of A on each dataset (as for any claim: a named variant, the only one, or the
`select_by` choice) against B's. `best: X` compares X's representative with every other method's
variant, each of which it must beat. A comparison holds when the 95% stratified-bootstrap interval of
the difference lies above 0 (for the optimality gap, a shortfall, below 0); for
`probability_of_improvement`, when the interval of P(X > Y) lies above 1/2. Verdicts use the claims'
vocabulary: *supported* (every comparison holds), *contradicted* (some interval lies wholly on the
other side), *not significant*, *undecidable at this n* (a dataset with one run on a side: its
resamples never vary, so no interval can speak for it) and *not measurable here*.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.aggregates import LOWER_IS_BETTER, TITLES, Estimate, difference_estimate, improvement_estimate
from harness.reporting.aggregates import interval_text, method_rng, task_scores
from harness.reporting.claim_sides import (CONTRADICTED, NOT_MEASURABLE, NOT_SIGNIFICANT, SUPPORTED, UNDECIDABLE,
                                           Unmeasurable, representative, variants)
from harness.reporting.model import ClaimResult

if TYPE_CHECKING:
    from harness.reporting.model import ReportData
    from harness.suite import ClaimCheck

POI = "probability_of_improvement"


@dataclass(frozen=True)
class Comparison:
    """The claim's side against one rival: an interval whose sign decides it, and how it reads."""

    rival: str
    margin: Estimate  # > 0 in the claim's favour
    text: str
    single_run: bool  # some dataset holds one run on either side


def check_aggregate_claim(data: "ReportData", text: str, check: "ClaimCheck") -> "ClaimResult":
    try:
        side, rivals = _sides(data, check)
        comparisons = [_compare(data, check, side, rival) for rival in rivals]
    except Unmeasurable as exc:
        return ClaimResult(text, NOT_MEASURABLE, str(exc), ())
    if any(c.single_run for c in comparisons):
        verdict = UNDECIDABLE
    elif any(c.margin.high < 0 for c in comparisons):
        verdict = CONTRADICTED
    elif all(c.margin.low > 0 for c in comparisons):
        verdict = SUPPORTED
    else:
        verdict = NOT_SIGNIFICANT
    held = sum(c.margin.low > 0 for c in comparisons)
    block = data.suite.aggregates
    assert block is not None  # the suite's validation requires the block for an aggregate claim
    summary = (f"{TITLES[check.aggregate or '']} of normalised {check.metric} over {len(data.datasets)} datasets, "
               f"95% stratified-bootstrap interval ({block.reps} draws): holds against {held} of "
               f"{len(comparisons)} rival(s)")
    if verdict == UNDECIDABLE:
        summary += "; a dataset with a single run on a side gives no interval: more seeds are needed"
    run_ids = tuple(dict.fromkeys(r for labels in (side, *rivals) for d, m in labels.items()
                                  if (c := data.cell(m, d, check.metric)) for r in c.run_ids))
    return ClaimResult(text, verdict, f"{summary}. " + "; ".join(c.text for c in comparisons), run_ids)


def _sides(data: "ReportData", check: "ClaimCheck") -> tuple[dict[str, str], list[dict[str, str]]]:
    """Per dataset, the claim's variant, and the rivals' (a `best` claim: every other method's variants)."""
    name = check.best or check.better
    assert name is not None  # the check's schema: `best`, or `better` and `than`
    side = {d: representative(data, name, d, check.metric, check.select_by) for d in data.datasets}
    if check.than is not None:
        return side, [{d: representative(data, check.than, d, check.metric, check.select_by) for d in data.datasets}]
    own = set(variants(data, name.split("[", 1)[0]))
    rivals = [dict.fromkeys(data.datasets, m) for m in data.methods if m not in own]
    if not rivals:
        raise Unmeasurable(f"'{name}' has no rival in this report")
    return side, rivals


def _compare(data: "ReportData", check: "ClaimCheck", side: dict[str, str], rival: dict[str, str]) -> Comparison:
    block = data.suite.aggregates
    assert block is not None and check.aggregate is not None  # an aggregate claim of a suite with the block
    a, b = task_scores(data, side), task_scores(data, rival)
    label_a, label_b = _label(side), _label(rival)
    single_run = any(len(runs) < 2 for runs in (*a, *b))
    rng_a, rng_b = method_rng(block, label_a), method_rng(block, label_b)
    if check.aggregate == POI:
        found = improvement_estimate(a, b, block.reps, rng_a, rng_b)
        margin = Estimate(found.point - 0.5, found.low - 0.5, found.high - 0.5)
        return Comparison(label_b, margin, f"P({label_a} > {label_b}) {interval_text(found)}", single_run)
    found = difference_estimate(check.aggregate, a, b, block.reps, rng_a, rng_b, block.gamma)
    sign = -1 if check.aggregate in LOWER_IS_BETTER else 1
    margin = Estimate(sign * found.point, *sorted((sign * found.low, sign * found.high)))
    return Comparison(label_b, margin, f"{label_a} − {label_b} {interval_text(found)}", single_run)


def _label(labels: dict[str, str]) -> str:
    """A side's name: its variant, or its variants per dataset when `select_by` chose differently."""
    names = list(dict.fromkeys(labels.values()))
    return names[0] if len(names) == 1 else "/".join(names)
