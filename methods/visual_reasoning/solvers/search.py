"""Template matching: the pixels of the asked colour are split into connected blobs (`scipy.ndimage.label`),
each blob is compared with every shape's template drawn at the blob's size (intersection over union), and the
blob whose best template is the asked shape gives the quadrant."""
from __future__ import annotations

import numpy as np
from scipy import ndimage

from methods.visual_reasoning.generators.search import COLOURS, LETTERS, SHAPES, quadrant, shape_mask
from methods.visual_reasoning.puzzle import Puzzle

TOLERANCE = 40.0  # per-channel distance to the asked colour that still counts as it


def best_shape(blob: np.ndarray) -> str:
    """The shape whose template, drawn in the blob's bounding box, overlaps the blob best."""
    height, width = blob.shape

    def overlap(shape: str) -> float:
        template = shape_mask(shape, height, width)
        return float((template & blob).sum() / (template | blob).sum())

    return max(SHAPES, key=overlap)


def solve(puzzle: Puzzle) -> str:
    colour = np.array(COLOURS[puzzle.query["colour"]], dtype=np.int16)
    mask = (np.abs(puzzle.image.astype(np.int16) - colour) <= TOLERANCE).all(axis=2)
    labels, _ = ndimage.label(mask)
    for number, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is not None and best_shape(labels[box] == number) == puzzle.query["shape"]:
            rows, cols = box
            return f"Answer: {LETTERS[quadrant((rows.start + rows.stop) / 2, (cols.start + cols.stop) / 2)]}"
    return "Answer: none"
