"""Visual thoughts: the picture of a partial solution, drawn by the family's own renderer, that a stepwise reasoner
is shown before its next step (`reasoner`).

A thought is a pure function of the puzzle as a solver sees it (its image and the prompt's facts, never its hidden
truth) and of the steps taken so far, so the same picture is drawn while training on a true trace and while
rolling out the model's own steps. Only mazes have one so far: the map with the cells walked through amber and
the agent's cell magenta (the goal cell keeps its colour when reached).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from methods.visual_reasoning.generators.maze import CELL, MOVES
from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.solvers.maze import read_map

VISITED, AGENT = (250, 200, 80), (200, 0, 200)
THOUGHT_TASKS = ("maze",)  # tasks with a visual thought


def maze_cells(puzzle: Puzzle, moves: Sequence[str]) -> list[tuple[int, int]]:
    """The cells `moves` pass through from the start read off the image (the start first); a move that leaves the
    map ends the list there."""
    grid = puzzle.query["grid"]
    cells = [read_map(puzzle.image, grid)[1]]
    for move in moves:
        row, col = cells[-1][0] + MOVES[move][0], cells[-1][1] + MOVES[move][1]
        if not (0 <= row < grid and 0 <= col < grid):
            break
        cells.append((row, col))
    return cells


def maze_thought(puzzle: Puzzle, moves: Sequence[str]) -> np.ndarray:
    """The map after `moves`: visited cells (not the start or goal) amber inside their grid lines, the agent's
    current cell magenta unless it stands on the start (no move yet) or the goal."""
    _, start, goal = read_map(puzzle.image, puzzle.query["grid"])
    cells = maze_cells(puzzle, moves)
    image = puzzle.image.copy()
    for cell in cells[1:]:
        if cell not in (start, goal):
            _fill(image, cell, AGENT if cell == cells[-1] else VISITED)
    return image


def _fill(image: np.ndarray, cell: tuple[int, int], colour: tuple[int, int, int]) -> None:
    """Paint a cell's inside, keeping the grid lines (one at each multiple of CELL and one on the last pixel)."""
    last = image.shape[0] - 1
    rows = slice(cell[0] * CELL + 1, min((cell[0] + 1) * CELL, last))
    cols = slice(cell[1] * CELL + 1, min((cell[1] + 1) * CELL, last))
    image[rows, cols] = colour


def thought(puzzle: Puzzle, steps: Sequence[str]) -> np.ndarray:
    """The visual thought of `puzzle` after `steps` (moves for a maze)."""
    if puzzle.kind != "maze":
        raise ValueError(f"no visual thought for {puzzle.kind} puzzles yet (only {', '.join(THOUGHT_TASKS)})")
    return maze_thought(puzzle, steps)
