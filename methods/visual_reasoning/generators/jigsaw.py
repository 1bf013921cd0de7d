"""Jigsaw reassembly (ThinkMorph's Jigsaw Assembly, VisPuzzle-like): a generated picture cut into g x g tiles
shown shuffled; the answer gives, for each position of the picture in reading order, the number of the shuffled
tile that belongs there.

The pictures are smooth random fields (a few low-frequency waves per channel) over a sky-to-ground brightness
and a left-to-right hue gradient, so neighbouring tiles continue each other across their shared edge. A picture
is kept only if every true neighbour is its tile's unique best edge match (`well_posed`), so the reassembly is
unique and an edge-matching solver can find it: the data favours edge matching over global semantics.
"""
from __future__ import annotations

import numpy as np

from methods.visual_reasoning.puzzle import Difficulty, Puzzle

GRID = {"easy": 2, "medium": 3, "hard": 4}
TILE = 24  # pixels per tile side


def picture(rng: np.random.Generator, side: int) -> np.ndarray:
    """A (side, side, 3) uint8 smooth random field over global gradients."""
    y, x = np.mgrid[0:side, 0:side] / side
    channels = []
    for channel in range(3):
        field = 0.9 * y if channel == 2 else (0.6 * x if channel == 0 else 0.4 * (1 - y))
        for _ in range(4):
            fy, fx = rng.uniform(0.5, 2.5, 2) * rng.choice([-1, 1], 2)
            field = field + rng.uniform(0.1, 0.35) * np.sin(2 * np.pi * (fy * y + fx * x) + rng.uniform(0, 2 * np.pi))
        channels.append(field)
    stacked = np.stack(channels, axis=-1)
    low, high = stacked.min(axis=(0, 1)), stacked.max(axis=(0, 1))
    return (255 * (stacked - low) / np.maximum(high - low, 1e-9)).round().astype(np.uint8)


def tiles_of(image: np.ndarray, grid: int) -> np.ndarray:
    """(grid * grid, t, t, 3) tiles in reading order."""
    t = image.shape[0] // grid
    return image.reshape(grid, t, grid, t, 3).swapaxes(1, 2).reshape(grid * grid, t, t, 3)


def assembled(tiles: np.ndarray, grid: int) -> np.ndarray:
    t = tiles.shape[1]
    return np.ascontiguousarray(tiles.reshape(grid, grid, t, t, 3).swapaxes(1, 2).reshape(grid * t, grid * t, 3))


def edge_dissimilarity(tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(right, below): right[i, j] is how badly tile j continues tile i to its right, below[i, j] the same
    downwards: the squared error of each side's linear extrapolation across the edge (prediction-based
    compatibility, after Gallagher's Mahalanobis gradient compatibility, without the covariance)."""
    t = tiles.astype(np.float64)

    def across(last: np.ndarray, before: np.ndarray, first: np.ndarray, after: np.ndarray) -> np.ndarray:
        ahead = (2 * last - before).reshape(len(t), -1)  # i's edge extrapolated one pixel on
        behind = (2 * first - after).reshape(len(t), -1)  # j's edge extrapolated one pixel back
        forward = ((ahead[:, None, :] - first.reshape(len(t), -1)[None]) ** 2).sum(axis=2)
        backward = ((behind[None, :, :] - last.reshape(len(t), -1)[:, None]) ** 2).sum(axis=2)
        return forward + backward

    right = across(t[:, :, -1], t[:, :, -2], t[:, :, 0], t[:, :, 1])
    below = across(t[:, -1], t[:, -2], t[:, 0], t[:, 1])
    return right, below


def well_posed(tiles: np.ndarray, grid: int) -> bool:
    """Each true neighbour pair is the unique best match both ways (i's best right tile is j and j's best
    left tile is i; the same downwards) among the tiles of the picture."""
    right, below = edge_dissimilarity(tiles)
    for cost, pairs in ((right, [(p, p + 1) for p in range(grid * grid) if p % grid < grid - 1]),
                        (below, [(p, p + grid) for p in range(grid * (grid - 1))])):
        masked = cost + np.diag(np.full(len(tiles), np.inf))
        for i, j in pairs:
            others_right = np.delete(masked[i], j)
            others_left = np.delete(masked[:, j], i)
            if not (masked[i, j] < others_right.min() and masked[i, j] < others_left.min()):
                return False
    return True


def generate(rng: np.random.Generator, difficulty: Difficulty, puzzle_id: str) -> Puzzle:
    grid = GRID[difficulty]
    while True:
        tiles = tiles_of(picture(rng, grid * TILE), grid)
        if well_posed(tiles, grid):
            break
    shown = rng.permutation(grid * grid)  # shown[k]: the picture position of shuffled tile k
    while (shown == np.arange(grid * grid)).all():
        shown = rng.permutation(grid * grid)
    placement = np.argsort(shown)  # placement[p]: the shuffled tile that belongs at picture position p
    last = grid * grid - 1
    prompt = (f"The image shows the {grid}x{grid} tiles of a picture in shuffled order, numbered 0 to {last} in "
              "reading order (left to right, then top to bottom). Rebuild the picture: for each of its positions "
              f"in reading order, give the number of the tile that belongs there, e.g. 'Answer: "
              f"{' '.join(map(str, np.roll(np.arange(grid * grid), 1)))}'.")
    return Puzzle(puzzle_id, "jigsaw", difficulty, assembled(tiles[shown], grid), prompt, {"grid": grid},
                  " ".join(map(str, placement)), {"placement": placement})
