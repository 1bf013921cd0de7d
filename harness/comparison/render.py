"""A comparison as a terminal table, Markdown for a pull-request comment, or JSON for tools.

All three show the figures a verdict rests on (means, n, delta, relative change, p-value,
test, tolerance), so a reader can check a regression without rerunning anything.
"""
from __future__ import annotations

import json
import math
from typing import Any

from harness.comparison.classify import CellComparison, Comparison, Status
from harness.comparison.criteria import DEFAULT_MAX_DROP
from harness.comparison.significance import ALPHA
from harness.comparison.verdict import Verdict
from harness.reporting.layout import AUTO_CELL, format_stats
from harness.stats import CellStats

_HEADER = ("status", "method", "dataset", "metric", "base", "candidate", "delta", "rel", "p", "test", "rule", "note")
_RULE_TEXTS = {
    "seeds": (f"a cell regresses (improves) when its mean moves beyond the rule's tolerance in the bad (good) "
              f"direction and, with 2+ seeds a side, a one-sided t-test gives p < {ALPHA:g}; "
              f"quality metrics without a rule use max_drop {DEFAULT_MAX_DROP:g}; base and candidate cells are "
              "mean ± 95% CI half-width over seeds (Student t)"),
    "rounds": (f"a benchmark regresses (improves) when its median time per call moves beyond max_ratio in the slow "
               f"(fast) direction and, where both files hold round times (--benchmark-save-data), a one-sided "
               f"Welch t-test on log round times gives p < {ALPHA:g}; times are judged only on matching hardware; "
               "base and candidate cells are seconds, mean ± 95% CI half-width over rounds (Student t), or the "
               "median where a file has no round times"),
    "counts": ("a benchmark regresses (improves) when its estimated cycles per call (harness bench, under Valgrind) "
               "move beyond max_ratio in the slow (fast) direction; one count a side, which repeats, so no test; "
               "counts are judged only within one build (Python, Valgrind, the engine's packages)"),
}


def render(comparison: Comparison, outcome: Verdict, fmt: str = "text") -> str:
    renderers = {"text": _text, "md": _markdown, "json": _json}
    return renderers[fmt](comparison, outcome)


def summary_line(comparison: Comparison, outcome: Verdict) -> str:
    """Counts of the statuses that occur, most serious first, and the exit code."""
    counts = ", ".join(f"{n} {status.value}" for status, n in comparison.counts().items() if n) or "no cells"
    failed = f"; {comparison.failed_cand_runs} failed candidate run(s)" if comparison.failed_cand_runs else ""
    return f"{counts}{failed} -> exit {outcome.exit_code} ({outcome.reason})"


def _rows(comparison: Comparison, cells: list[CellComparison]) -> list[tuple[str, ...]]:
    arrows = {c.metric: "↑" if c.higher_is_better else "↓" for c in comparison.criteria}
    return [(cell.status.value, cell.method, cell.dataset, f"{cell.metric} {arrows.get(cell.metric, '')}".strip(),
             _stats(cell.base), _stats(cell.cand), _number(cell.delta, "+.4g"), _number(cell.relative, "+.1%"),
             _p_value(cell.p_value), cell.test, cell.tolerance, cell.reason) for cell in cells]


def _text(comparison: Comparison, outcome: Verdict) -> str:
    rows = [_HEADER, *_rows(comparison, comparison.cells)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines = ["  ".join(value.ljust(width) for value, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join([f"base:      {comparison.base}", f"candidate: {comparison.cand}", "", *lines, "",
                      summary_line(comparison, outcome), f"({_RULE_TEXTS[comparison.samples]})", ""])


def _markdown(comparison: Comparison, outcome: Verdict) -> str:
    changed = [cell for cell in comparison.cells if cell.status is not Status.UNCHANGED]
    rule_text = _RULE_TEXTS[comparison.samples]
    lines = [f"**Benchmark comparison:** {summary_line(comparison, outcome)}", "",
             f"Base `{comparison.base}`, candidate `{comparison.cand}`. {rule_text[0].upper()}{rule_text[1:]}.", ""]
    if changed:
        lines += ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
        lines += ["| " + " | ".join(value.replace("|", "\\|") for value in row) + " |"
                  for row in _rows(comparison, changed)]
    else:
        lines.append(f"All {len(comparison.cells)} cells unchanged.")
    return "\n".join(lines) + "\n"


def _json(comparison: Comparison, outcome: Verdict) -> str:
    document = {
        "base": comparison.base, "candidate": comparison.cand, "exit_code": outcome.exit_code,
        "reason": outcome.reason, "alpha": ALPHA, "failed_candidate_runs": comparison.failed_cand_runs,
        "counts": {status.value: n for status, n in comparison.counts().items()},
        "cells": [_cell_json(cell) for cell in comparison.cells],
    }
    return json.dumps(document, indent=2) + "\n"


def _cell_json(cell: CellComparison) -> dict[str, Any]:
    return {"method": cell.method, "dataset": cell.dataset, "metric": cell.metric, "status": cell.status.value,
            "base": _stats_json(cell.base), "candidate": _stats_json(cell.cand), "delta": _finite(cell.delta),
            "relative_change": _finite(cell.relative), "p_value": _finite(cell.p_value), "test": cell.test or None,
            "tolerance": cell.tolerance, "reason": cell.reason or None}


def _stats(stats: CellStats | None) -> str:
    """The cell as reports show figures (mean ± 95% CI half-width, digits set by the interval), with n."""
    if stats is None:
        return "-"
    text = format_stats(stats, AUTO_CELL)
    return text if stats.n == 1 else f"{text} (n={stats.n})"


def _stats_json(stats: CellStats | None) -> dict[str, Any] | None:
    return None if stats is None else {"mean": stats.mean, "std": _finite(stats.std), "n": stats.n}


def _number(value: float, spec: str) -> str:
    return "-" if math.isnan(value) else format(value, spec)


def _p_value(p: float) -> str:
    return "-" if math.isnan(p) else "<0.001" if p < 0.001 else f"{p:.3f}"


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
