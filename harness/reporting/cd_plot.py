"""The critical-difference diagram (Demsar 2006, Fig. 1): methods placed on an axis of mean ranks, best on the
left, named on both sides, with a bar joining each run of methods whose mean ranks differ by less than the
Nemenyi critical difference (no pair of them differs significantly), and the CD itself drawn to scale above.

Drawn in inch coordinates on one bare axes (the layout of Orange's `graph_ranks`), with label widths estimated
from their length rather than measured: measuring every text first is what makes `tight_layout` slow.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from harness.reporting.rank_uncertainty import rank_text  # noqa: E402

_CHAR = 0.062   # inches per character of an 8 pt label, generous
_ROW = 0.2      # inches between two method labels
_BAR_ROW = 0.1  # inches between two group bars
_CD_Y = 0.55    # the CD bar, below two lines of title
_AXIS_Y = 0.9   # the rank axis


def critical_difference_diagram(names: list[str], mean_ranks: list[float], cd: float,
                                groups: list[tuple[int, int]], title: tuple[str, str]) -> Figure:
    """The diagram of `names` at `mean_ranks` under a two-line `title`; `groups` are (first, last) positions in the
    ranks sorted ascending (`rank_tests.nemenyi_groups`)."""
    order = sorted(range(len(names)), key=lambda i: (mean_ranks[i], i))
    ranks = [mean_ranks[i] for i in order]
    labels = [f"{names[i]} ({rank_text(mean_ranks[i])})" for i in order]
    methods = len(names)
    axis_width = max(3.0, min(8.0, 0.32 * methods))
    width = max(2 * (0.25 + _CHAR * max(len(label) for label in labels)) + axis_width,
                0.3 + _CHAR * max(len(line) for line in title))
    text_space = (width - axis_width) / 2
    groups_bottom = _AXIS_Y + 0.1 + _BAR_ROW * len(groups)
    left = math.ceil(methods / 2)
    height = groups_bottom + _ROW * (left + 1)

    def x(rank: float) -> float:
        return text_space + (rank - 1) / max(1, methods - 1) * axis_width

    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    for y, line in zip((0.12, 0.27), title, strict=True):
        ax.text(width / 2, y, line, ha="center", va="center", fontsize=8)
    _rank_axis(ax, methods, x)
    _cd_bar(ax, cd, methods, x)
    for row, (first, last) in enumerate(groups):
        y = _AXIS_Y + 0.1 + _BAR_ROW * (row + 0.5)
        ax.plot([x(ranks[first]) - 0.05, x(ranks[last]) + 0.05], [y, y], color="black", linewidth=2.5,
                solid_capstyle="round")
    for position, (rank, label) in enumerate(zip(ranks, labels, strict=True)):
        on_left = position < left
        y = groups_bottom + _ROW * ((position + 1) if on_left else (methods - position))
        end = text_space - 0.1 if on_left else width - text_space + 0.1
        ax.plot([x(rank), x(rank), end], [_AXIS_Y, y, y], color="black", linewidth=0.8)
        ax.text(end + (-0.05 if on_left else 0.05), y, label, ha="right" if on_left else "left", va="center",
                fontsize=8)
    return fig


def _rank_axis(ax: Axes, methods: int, x: Callable[[float], float]) -> None:
    """The axis from rank 1 to `methods`, a tick and a label at every whole rank, a short tick at each half."""
    ax.plot([x(1), x(methods)], [_AXIS_Y, _AXIS_Y], color="black", linewidth=0.8)
    for tick in range(1, 2 * methods):
        rank = 1 + (tick - 1) / 2
        whole = tick % 2 == 1
        ax.plot([x(rank), x(rank)], [_AXIS_Y, _AXIS_Y - (0.08 if whole else 0.04)], color="black", linewidth=0.6)
        if whole:
            ax.text(x(rank), _AXIS_Y - 0.11, str(int(rank)), ha="center", va="bottom", fontsize=7)


def _cd_bar(ax: Axes, cd: float, methods: int, x: Callable[[float], float]) -> None:
    """The critical difference to the axis's scale, from rank 1, cut at the axis's end when wider."""
    end = min(1 + cd, methods)
    y = _CD_Y
    ax.plot([x(1), x(end)], [y, y], color="black", linewidth=1.2)
    for rank in (1, end):
        ax.plot([x(rank), x(rank)], [y - 0.04, y + 0.04], color="black", linewidth=1.2)
    wider = " (wider than the axis)" if 1 + cd > methods else ""
    ax.text(x(1), y - 0.07, f"CD = {cd:.2f}{wider}", ha="left", va="bottom", fontsize=7)
