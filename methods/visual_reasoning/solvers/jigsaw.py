"""Edge matching: the shuffled tiles' pairwise edge dissimilarities (`generators.jigsaw.edge_dissimilarity`),
then a beam search that fills the picture in reading order, keeping the `BEAM` cheapest partial placements."""
from __future__ import annotations

import numpy as np

from methods.visual_reasoning.generators.jigsaw import edge_dissimilarity, tiles_of
from methods.visual_reasoning.puzzle import Puzzle

BEAM = 64


def reassemble(tiles: np.ndarray, grid: int, beam: int = BEAM) -> list[int]:
    """The placement (tile per picture position) of least total edge dissimilarity the beam search finds."""
    right, below = edge_dissimilarity(tiles)
    partial: list[tuple[float, list[int]]] = [(0.0, [])]
    for position in range(grid * grid):
        grown = []
        for cost, placed in partial:
            used = set(placed)
            for tile in range(len(tiles)):
                if tile in used:
                    continue
                step = 0.0
                if position % grid:
                    step += right[placed[position - 1], tile]
                if position >= grid:
                    step += below[placed[position - grid], tile]
                grown.append((cost + step, [*placed, tile]))
        grown.sort(key=lambda item: item[0])
        partial = grown[:beam]
    return partial[0][1]


def solve(puzzle: Puzzle) -> str:
    grid = puzzle.query["grid"]
    return "Answer: " + " ".join(map(str, reassemble(tiles_of(puzzle.image, grid), grid)))
