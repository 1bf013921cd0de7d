"""Classical solvers, one per task: each reads a puzzle's image (and the facts its prompt states, `query`) and
returns its answer text; none reads the hidden truth. `solve` picks the task's solver."""
from __future__ import annotations

from collections.abc import Callable

from methods.visual_reasoning.puzzle import Puzzle


def solve(puzzle: Puzzle) -> str:
    from methods.visual_reasoning.solvers import chart, jigsaw, maze, search

    solvers: dict[str, Callable[[Puzzle], str]] = {"jigsaw": jigsaw.solve, "maze": maze.solve,
                                                   "search": search.solve, "chart": chart.solve}
    return solvers[puzzle.kind](puzzle)
