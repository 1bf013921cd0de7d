"""Breadth-first search on the map read back from the image: each cell's centre pixel is classified by the
nearest of the renderer's colours (floor, hole, start, goal)."""
from __future__ import annotations

import numpy as np

from methods.visual_reasoning.generators.maze import FLOOR, GOAL, HOLE, START, shortest_path
from methods.visual_reasoning.puzzle import Puzzle

PALETTE = np.array([FLOOR, HOLE, START, GOAL], dtype=np.float64)


def read_map(image: np.ndarray, grid: int) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """(holes, start, goal) of a rendered map of `grid` x `grid` cells."""
    cell = image.shape[0] / grid
    centres = ((np.arange(grid) + 0.5) * cell).astype(int)
    pixels = image[np.ix_(centres, centres)].astype(np.float64)
    kind = ((pixels[:, :, None, :] - PALETTE[None, None]) ** 2).sum(axis=3).argmin(axis=2)
    start = tuple(int(v) for v in np.argwhere(kind == 2)[0])
    goal = tuple(int(v) for v in np.argwhere(kind == 3)[0])
    return kind == 1, (start[0], start[1]), (goal[0], goal[1])


def solve(puzzle: Puzzle) -> str:
    holes, start, goal = read_map(puzzle.image, puzzle.query["grid"])
    path = shortest_path(holes, start, goal)
    return "Answer: " + (" ".join(path) if path else "none")
