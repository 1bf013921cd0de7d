"""Grid-maze navigation in the style of VSP's FrozenLake maps (ThinkMorph's Spatial Navigation task): an n x n
grid of floor and holes, a start and a goal; the answer is a move sequence from start to goal on floor only.

Every map is solvable: holes are redrawn until breadth-first search finds a path, and the stored answer is a
shortest one. Any valid path is correct (`grading`); `path_optimal` asks for a shortest one.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from methods.visual_reasoning.puzzle import Difficulty, Puzzle

SIZE = {"easy": 4, "medium": 6, "hard": 8}
HOLE_RATE = {"easy": 0.2, "medium": 0.25, "hard": 0.3}
CELL = 12  # pixels per cell
FLOOR, HOLE, START, GOAL, LINE = (235, 235, 235), (40, 60, 120), (60, 170, 60), (210, 50, 50), (160, 160, 160)
MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def shortest_path(holes: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> str | None:
    """The moves of a shortest path over floor cells (breadth-first search, moves tried in U D L R order), or
    None when the goal cannot be reached."""
    n = holes.shape[0]
    came_from: dict[tuple[int, int], tuple[tuple[int, int], str]] = {}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            moves = []
            while cell != start:
                cell, move = came_from[cell]
                moves.append(move)
            return "".join(reversed(moves))
        for move, (dr, dc) in MOVES.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < n and 0 <= nxt[1] < n and not holes[nxt] and nxt not in came_from and nxt != start:
                came_from[nxt] = (cell, move)
                queue.append(nxt)
    return None


def walk(holes: np.ndarray, start: tuple[int, int], moves: str) -> tuple[int, int] | None:
    """Where `moves` lead from `start`, or None when one leaves the grid or steps on a hole."""
    n = holes.shape[0]
    row, col = start
    for move in moves:
        dr, dc = MOVES[move]
        row, col = row + dr, col + dc
        if not (0 <= row < n and 0 <= col < n) or holes[row, col]:
            return None
    return row, col


def render(holes: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> np.ndarray:
    colours = np.where(holes[..., None], np.array(HOLE, np.uint8), np.array(FLOOR, np.uint8))
    colours[start], colours[goal] = START, GOAL
    image = np.repeat(np.repeat(colours, CELL, axis=0), CELL, axis=1)
    image[::CELL, :], image[:, ::CELL] = LINE, LINE
    image[-1, :], image[:, -1] = LINE, LINE
    return np.ascontiguousarray(image)


def generate(rng: np.random.Generator, difficulty: Difficulty, puzzle_id: str) -> Puzzle:
    n = SIZE[difficulty]
    while True:
        holes = rng.random((n, n)) < HOLE_RATE[difficulty]
        start_index, goal_index = rng.choice(n * n, size=2, replace=False)
        start, goal = divmod(int(start_index), n), divmod(int(goal_index), n)
        holes[start] = holes[goal] = False
        path = shortest_path(holes, start, goal)
        if path is not None and len(path) >= 2:
            break
    prompt = (f"The map is a {n}x{n} grid. Move the agent from the green cell to the red cell, one cell at a time, "
              "without stepping on a dark-blue hole or leaving the map. Moves: U (up), D (down), L (left), R (right). "
              "Give the moves in order, e.g. 'Answer: R R D'.")
    return Puzzle(puzzle_id, "maze", difficulty, render(holes, start, goal), prompt, {"grid": n},
                  " ".join(path), {"holes": holes, "start": start, "goal": goal, "shortest": len(path)})
