"""Claims at matched density: a method's points against a rival's curve interpolated at the same x."""
from __future__ import annotations

from types import SimpleNamespace

from harness.reporting.claims import _check_matched
from harness.reporting.model import Cell
from harness.stats import summarize

SEEDS = (0, 1, 2, 3, 4, 5)


def _data(points: dict[str, list[tuple[float, float]]]):
    """A report model stand-in: per variant, one (density, recall) point per seed (recall jittered by seed)."""
    cells = {}
    for variant, (x, y) in ((v, p) for v, pts in points.items() for p in pts):
        for metric, value in (("density", x), ("recall", y)):
            values = tuple(value + ((s % 3) / 200 if metric == "recall" and variant[0] == "a" else 0.0) for s in SEEDS)
            cells[(variant, "d", metric)] = Cell(variant, "d", metric, summarize(values), SEEDS, values,
                                                 tuple(f"{variant}-{metric}-{s}" for s in SEEDS))
    return SimpleNamespace(methods=tuple(points), cell=lambda m, d, k: cells.get((m, d, k)))


def _points(method: str, pairs: list[tuple[float, float]]):
    return {f"{method}[g={i}]": [pair] for i, pair in enumerate(pairs)}


def test_a_method_above_the_rivals_curve_passes_even_at_higher_density():
    data = _data(_points("a", [(0.3, 0.9), (0.5, 0.97)]) | _points("b", [(0.2, 0.7), (0.6, 0.9)]))
    result = _check_matched(data, "a beats b", "a", "b", "recall", "density", ["d"], higher=True)
    assert result.verdict == "pass"
    assert "at matched density" in result.statistic and "6 (dataset, seed) pairs" in result.statistic


def test_a_method_below_the_rivals_curve_fails_although_its_raw_recall_is_higher():
    # a's recall 0.95 beats every b point, but at a's density 0.8 b's curve reaches 0.975.
    data = _data(_points("a", [(0.8, 0.95)]) | _points("b", [(0.6, 0.95), (1.0, 1.0)]))
    assert _check_matched(data, "t", "a", "b", "recall", "density", ["d"], higher=True).verdict == "fail"


def test_points_outside_the_rivals_range_are_never_extrapolated():
    data = _data(_points("a", [(0.1, 0.99)]) | _points("b", [(0.3, 0.5), (0.6, 0.9)]))
    result = _check_matched(data, "t", "a", "b", "recall", "density", ["d"], higher=True)
    assert result.verdict == "not measurable here"
