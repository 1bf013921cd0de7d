"""Chart refocus over matplotlib-rendered bar charts with known values (ThinkMorph's Chart Refocus, ChartQA-like):
the question asks for the value of one labelled bar among several.

Values are multiples of 5 between 5 and 95 on a fixed 0-100 axis (the prompt says so); harder levels have more,
narrower bars in mixed colours over grid lines. Charts are drawn with matplotlib's Agg canvas directly (no
pyplot); a process keeps one figure per layout (number of bars, grid lines) and only sets the bars' heights and
colours before each draw, which halves a chart's cost (building the axes and ticks is most of it).
"""
from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from methods.visual_reasoning.puzzle import Difficulty, Puzzle

BARS = {"easy": 4, "medium": 7, "hard": 10}
STEP, TOP = 5, 100
SIZE_INCHES, DPI = (2.6, 2.0), 64
BAR_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@cache
def _layout(bars: int, grid_lines: bool) -> tuple[Any, Any]:
    """(canvas, bar artists) of an empty chart of `bars` bars: the axes span 0-100, all four spines drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=SIZE_INCHES, dpi=DPI)
    canvas = FigureCanvasAgg(figure)
    axes = figure.add_axes((0.14, 0.12, 0.82, 0.82))
    container = axes.bar([chr(ord("A") + k) for k in range(bars)], np.ones(bars), width=0.6, zorder=2)
    axes.set_ylim(0, TOP)
    axes.set_yticks([0, 50, 100])
    axes.tick_params(labelsize=6, length=2)
    if grid_lines:
        axes.grid(axis="y", color="#dddddd", linewidth=0.8, zorder=0)
    return canvas, container


def render(values: np.ndarray, colours: list[str], grid_lines: bool) -> np.ndarray:
    """The chart as an (H, W, 3) uint8 image."""
    canvas, container = _layout(len(values), grid_lines)
    for bar, value, colour in zip(container, values, colours, strict=True):
        bar.set_height(float(value))
        bar.set_color(colour)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


@cache
def bar_columns(bars: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """(the left spine's pixel column, each bar's [first, last) pixel columns) in a chart of `bars` bars: the
    layout's geometry, the same whatever the values, so a refocus can cut a bar out without reading it."""
    _, container = _layout(bars, False)
    to_pixels = container[0].axes.transData
    spine = int(container[0].axes.transAxes.transform((0, 0))[0])
    columns = []
    for bar in container:
        left, right = to_pixels.transform([(bar.get_x(), 0), (bar.get_x() + bar.get_width(), 0)])[:, 0]
        columns.append((int(np.floor(left)), int(np.ceil(right))))
    return spine, tuple(columns)


def generate(rng: np.random.Generator, difficulty: Difficulty, puzzle_id: str) -> Puzzle:
    bars = BARS[difficulty]
    values = STEP * rng.integers(1, TOP // STEP, bars)
    if difficulty == "easy":
        colours = [BAR_COLOURS[0]] * bars
    else:
        colours = [BAR_COLOURS[int(k)] for k in rng.integers(len(BAR_COLOURS), size=bars)]
    asked = int(rng.integers(bars))
    label = chr(ord("A") + asked)
    prompt = (f"The bar chart shows {bars} bars labelled A to {chr(ord('A') + bars - 1)} from left to right on a "
              f"0-{TOP} scale; every value is a multiple of {STEP}. What is the value of bar {label}? "
              "Give the number, e.g. 'Answer: 35'.")
    return Puzzle(puzzle_id, "chart", difficulty, render(values, colours, difficulty == "hard"), prompt,
                  {"bars": bars, "bar": asked}, str(int(values[asked])), {"value": float(values[asked])})
