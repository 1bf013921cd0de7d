"""What every claim shares, pairwise (`claims`) or over an aggregate (`aggregate_claims`): the verdicts' names and
how a claim picks the one variant of each method it compares.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.reporting.model import Cell, ReportData

SUPPORTED, CONTRADICTED = "supported", "contradicted"
NOT_SIGNIFICANT, UNDECIDABLE, NOT_MEASURABLE = "not significant", "undecidable at this n", "not measurable here"
VERDICTS = (SUPPORTED, CONTRADICTED, NOT_SIGNIFICANT, UNDECIDABLE, NOT_MEASURABLE)


class Unmeasurable(Exception):
    """Nothing measured can decide the claim; the message says what is missing."""


def observed(cell: "Cell | None") -> bool:
    """Whether a cell has an outcome a claim can use: a value (a never-reached curve's infinity included; NaN is
    'does not apply') or a failed run."""
    return cell is not None and (any(not math.isnan(v) for v in cell.values) or bool(cell.failed_seeds))


def variants(data: "ReportData", method: str) -> list[str]:
    """A suite method name stands for all its grid variants; a variant label for itself."""
    return [m for m in data.methods if m == method or m.startswith(method + "[")]


def representative(data: "ReportData", method: str, dataset: str, metric: str, select_by: str | None) -> str:
    """The one variant of `method` a claim compares on `dataset`; never chosen on the claim's metric."""
    measured = [v for v in variants(data, method) if observed(data.cell(v, dataset, metric))]
    if not measured:
        raise Unmeasurable(f"no runs of '{method}' on '{dataset}'")
    if len(measured) == 1:
        return measured[0]
    selector = data.metrics.get(select_by) if select_by else None
    if selector is None or selector.higher_is_better is None:
        why = (f"'select_by: {select_by}' has no recorded direction or was not recorded" if select_by
               else "name one variant or declare 'select_by' (a validation figure)")
        raise Unmeasurable(f"'{method}' has {len(measured)} measured variants on '{dataset}': {why}")
    sign = 1 if selector.higher_is_better else -1
    assert select_by is not None  # a selector was found under it
    scored = [(sign * c.stats.mean, v) for v in measured
              if (c := data.cell(v, dataset, select_by)) and c.stats.n > 0 and math.isfinite(c.stats.mean)]
    if not scored:
        raise Unmeasurable(f"no variant of '{method}' recorded '{select_by}' on '{dataset}'")
    return max(scored)[1]
