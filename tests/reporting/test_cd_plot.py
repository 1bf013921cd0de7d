"""The critical-difference diagram draws what the comparison found: every method at its mean rank, one bar per
group of methods that do not differ, and the critical difference to the axis's scale."""
from __future__ import annotations

import matplotlib.pyplot as plt

from harness.reporting.cd_plot import critical_difference_diagram
from harness.reporting.rank_tests import nemenyi_groups

NAMES = ["a", "b", "c", "d", "e"]
RANKS = [3.0, 1.0, 4.5, 1.5, 2.6]


def _drawn():
    figure = critical_difference_diagram(NAMES, RANKS, 1.25, nemenyi_groups(RANKS, 1.25), ("title", "subtitle"))
    (ax,) = figure.axes
    texts = [t.get_text() for t in ax.texts]
    plt.close(figure)
    return ax, texts


def test_every_method_is_named_with_its_mean_rank_and_the_cd_is_labelled():
    _, texts = _drawn()
    assert {"b (1)", "d (1.5)", "e (2.6)", "a (3)", "c (4.5)"} <= set(texts)
    assert "CD = 1.25" in texts and {"title", "subtitle"} <= set(texts)


def test_one_bar_per_group_of_methods_that_do_not_differ():
    ax, _ = _drawn()
    bars = [line for line in ax.lines if line.get_linewidth() == 2.5]
    assert len(bars) == len(nemenyi_groups(RANKS, 1.25)) == 3


def test_the_best_method_sits_left_of_the_worst():
    ax, _ = _drawn()
    x = {t.get_text(): t.get_position()[0] for t in ax.texts}
    assert x["b (1)"] < x["c (4.5)"]
