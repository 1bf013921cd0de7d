"""Reading the rendered values back: the axes frame is found from its dark spines, the bars as runs of coloured
columns inside it (left to right), and the asked bar's top row converts to a value on the prompt's 0-100 axis,
rounded to the stated multiple of 5."""
from __future__ import annotations

import numpy as np

from methods.visual_reasoning.generators.chart import STEP, TOP
from methods.visual_reasoning.puzzle import Puzzle


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(np.int8), [0]])))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def read_values(image: np.ndarray) -> list[float]:
    """Every bar's value, left to right."""
    pixels = image.astype(np.int16)
    dark = pixels.max(axis=2) < 80
    rows = np.flatnonzero(dark.mean(axis=1) > 0.5)  # the top and bottom spines span the axes' width
    cols = np.flatnonzero(dark.mean(axis=0) > 0.5)
    top, bottom, left, right = rows.min(), rows.max(), cols.min(), cols.max()
    inside = pixels[top + 1:bottom, left + 1:right]
    coloured = (inside.max(axis=2) - inside.min(axis=2)) > 40  # bars are saturated; grid lines and paper grey
    values = []
    for start, stop in _runs(coloured.any(axis=0)):
        centre = coloured[:, (start + stop) // 2]
        bar_top = int(np.flatnonzero(centre)[0]) + top + 1
        values.append(TOP * (bottom - bar_top) / (bottom - top))
    return values


def solve(puzzle: Puzzle) -> str:
    values = read_values(puzzle.image)
    bar = puzzle.query["bar"]
    if bar >= len(values):
        return "Answer: none"
    return f"Answer: {STEP * round(values[bar] / STEP)}"
