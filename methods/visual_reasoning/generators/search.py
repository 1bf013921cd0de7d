"""Visual search over synthetic scenes (ThinkMorph's Visual Search, V*-like): coloured shapes on a canvas, one of
them the only object of its colour and shape; the question asks which quadrant holds it (options A to D).

Distractors share the target's colour or its shape (conjunction search), objects never overlap, and the target
lies wholly inside its quadrant, so the answer is unique. Harder levels have more and smaller objects.
"""
from __future__ import annotations

import numpy as np

from methods.visual_reasoning.puzzle import Difficulty, Puzzle

CANVAS = 128
COUNT = {"easy": 4, "medium": 9, "hard": 16}
OBJECT = {"easy": 20, "medium": 14, "hard": 10}  # side of an object's box in pixels
BACKGROUND = (245, 245, 240)
COLOURS = {"red": (220, 40, 40), "green": (40, 160, 60), "blue": (40, 80, 220), "yellow": (230, 200, 30),
           "purple": (140, 60, 170), "orange": (240, 130, 20)}
SHAPES = ("circle", "square", "triangle")
QUADRANTS = ("top-left", "top-right", "bottom-left", "bottom-right")
LETTERS = "ABCD"


def shape_mask(shape: str, height: int, width: int) -> np.ndarray:
    """The (height, width) boolean mask of a shape filling its box: the generator's drawing and the template
    the search solver matches."""
    y, x = np.mgrid[0:height, 0:width]
    cy, cx = (height - 1) / 2, (width - 1) / 2
    if shape == "circle":
        return ((y - cy) / (height / 2)) ** 2 + ((x - cx) / (width / 2)) ** 2 <= 1.0
    if shape == "square":
        return np.ones((height, width), dtype=bool)
    half_width = (y + 1) / height * width / 2  # an upward triangle: apex on top, base at the bottom
    return np.abs(x - cx) <= half_width


def _placements(rng: np.random.Generator, count: int, size: int) -> list[tuple[int, int]] | None:
    """Top-left corners of `count` non-overlapping boxes (2-pixel gaps), the first inside a quadrant."""
    corners: list[tuple[int, int]] = []
    for _ in range(400):
        row, col = (int(v) for v in rng.integers(1, CANVAS - size - 1, 2))
        if not corners and any(lo < CANVAS // 2 + 1 and lo + size > CANVAS // 2 - 1 for lo in (row, col)):
            continue
        if all(abs(row - r) > size + 2 or abs(col - c) > size + 2 for r, c in corners):
            corners.append((row, col))
            if len(corners) == count:
                return corners
    return None


def quadrant(row: float, col: float) -> int:
    return 2 * int(row >= CANVAS / 2) + int(col >= CANVAS / 2)


def generate(rng: np.random.Generator, difficulty: Difficulty, puzzle_id: str) -> Puzzle:
    count, size = COUNT[difficulty], OBJECT[difficulty]
    colours = list(COLOURS)
    target = (colours[rng.integers(len(colours))], SHAPES[rng.integers(len(SHAPES))])
    corners = None
    while corners is None:
        corners = _placements(rng, count, size)
    objects = [target]
    while len(objects) < count:
        shares_colour = rng.random() < 0.5  # a distractor shares the colour or the shape, never both
        colour = target[0] if shares_colour else colours[rng.integers(len(colours))]
        shape = SHAPES[rng.integers(len(SHAPES))] if shares_colour else target[1]
        if (colour, shape) != target:
            objects.append((colour, shape))
    image = np.empty((CANVAS, CANVAS, 3), np.uint8)
    image[:] = BACKGROUND
    for (colour, shape), (row, col) in zip(objects, corners, strict=True):
        box = image[row:row + size, col:col + size]
        box[shape_mask(shape, size, size)] = COLOURS[colour]
    answer = quadrant(corners[0][0] + size / 2, corners[0][1] + size / 2)
    options = " ".join(f"({letter}) {name}" for letter, name in zip(LETTERS, QUADRANTS, strict=True))
    prompt = (f"Find the {target[0]} {target[1]}; it is the only one. Which quadrant of the image is it in? "
              f"{options}. Answer with the option's letter, e.g. 'Answer: B'.")
    return Puzzle(puzzle_id, "search", difficulty, image, prompt,
                  {"colour": target[0], "shape": target[1], "options": dict(zip(LETTERS, QUADRANTS, strict=True))},
                  LETTERS[answer], {"option": LETTERS[answer]})
