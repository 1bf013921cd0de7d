"""Visual thoughts: the picture of a partial solution, drawn by the family's own renderer, that a stepwise reasoner
is shown before its next step (`reasoner`).

A thought is a pure function of the puzzle as a solver sees it (its image and the prompt's facts, never its hidden
truth) and of the steps taken so far, so the same picture is drawn while training on a true trace and while
rolling out the model's own steps. The steps are the edit words of `scripts`:

- maze (moves): the map with the cells walked through amber and the agent's cell magenta (the goal cell keeps its
  colour when reached);
- jigsaw (`l` + a board location): the board after each step swapped the tile at that location into the next
  position in reading order, so the placed tiles form the top rows of the picture and the rest stay shuffled; a
  magenta cursor (a small square at the centre of the next position's tile, away from the edges a match reads)
  shows where the next tile goes, so the picture alone tells how far the assembly is;
- chart (`b` + a bar letter): the refocus: the chart cut down to its y-axis (ticks and labels) and the chosen bar's
  columns, the other bars gone;
- search (`z` + a quadrant letter): the zoom: the last quadrant chosen, cropped at full resolution (twice what
  the whole scene gets once resized for the reasoner), its sides on the scene's border drawn dark, so the picture
  alone tells which quadrant it shows (objects never touch the border).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from methods.visual_reasoning.generators.chart import bar_columns
from methods.visual_reasoning.generators.jigsaw import assembled, tiles_of
from methods.visual_reasoning.generators.maze import CELL, MOVES
from methods.visual_reasoning.generators.search import CANVAS, LETTERS
from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.solvers.maze import read_map

VISITED, AGENT = (250, 200, 80), (200, 0, 200)
MARGIN = 2  # pixel columns kept either side of a refocused bar
CURSOR = 4  # side of the jigsaw cursor in pixels
BORDER = (60, 60, 60)  # a zoomed quadrant's sides on the scene's border


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


def jigsaw_board(steps: Sequence[str], tiles: int) -> list[int]:
    """The shuffled tile numbers at each board location after `steps`: step k (`l` + a location) swaps the tile
    there with the one at location k (a location before k unplaces a tile; the board stays a permutation); a
    location off the board ends the steps."""
    board = list(range(tiles))
    for k, step in enumerate(steps[:tiles]):
        location = int(step[1:])
        if location >= tiles:
            break
        board[k], board[location] = board[location], board[k]
    return board


def jigsaw_thought(puzzle: Puzzle, steps: Sequence[str]) -> np.ndarray:
    """The board after `steps`, drawn from the shuffled picture's own tiles, the cursor on the next position."""
    grid = puzzle.query["grid"]
    image = assembled(tiles_of(puzzle.image, grid)[jigsaw_board(steps, grid * grid)], grid)
    if len(steps) < grid * grid:
        tile = image.shape[0] // grid
        row, col = (tile * v + (tile - CURSOR) // 2 for v in divmod(len(steps), grid))
        image[row:row + CURSOR, col:col + CURSOR] = AGENT
    return image


def chart_thought(puzzle: Puzzle, steps: Sequence[str]) -> np.ndarray:
    """The chart before any step; after one, the y-axis strip beside the last chosen bar's columns."""
    if not steps:
        return puzzle.image
    spine, columns = bar_columns(puzzle.query["bars"])
    first, last = columns[ord(steps[-1][1:]) - ord("A")]
    strip = puzzle.image[:, :spine + MARGIN]
    return np.ascontiguousarray(np.concatenate([strip, puzzle.image[:, first - MARGIN:last + MARGIN]], axis=1))


def search_thought(puzzle: Puzzle, steps: Sequence[str]) -> np.ndarray:
    """The scene before any step; after one, the last zoomed quadrant (A top-left, B top-right, C bottom-left,
    D bottom-right, as the options)."""
    if not steps:
        return puzzle.image
    quadrant, half = LETTERS.index(steps[-1][1:]), CANVAS // 2
    lower, right = divmod(quadrant, 2)
    view = puzzle.image[half * lower:half * (lower + 1), half * right:half * (right + 1)].copy()
    view[-1 if lower else 0, :] = BORDER
    view[:, -1 if right else 0] = BORDER
    return view


THOUGHTS = {"maze": maze_thought, "jigsaw": jigsaw_thought, "chart": chart_thought, "search": search_thought}


def thought(puzzle: Puzzle, steps: Sequence[str]) -> np.ndarray:
    """The visual thought of `puzzle` after `steps` (its script's edit words)."""
    return THOUGHTS[puzzle.kind](puzzle, steps)
