"""The generated training shapes the flow model and the shape classifier learn from, which the nearest-shape
baseline searches and the realism metrics compare against: `count` shapes of TRAIN_STREAM at seed `data_seed`,
disjoint from every suite seed's test and reference shapes (other streams)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from methods.shape_control.furniture import KINDS, TRAIN_STREAM, generate
from methods.shape_control.superquadric import occupancy


@lru_cache(maxsize=4)
def training_shapes(count: int, resolution: int, data_seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(count, R, R, R) bool occupancies and (count,) kind indices into KINDS; cached per process, read-only."""
    shapes = [generate(TRAIN_STREAM, data_seed, index) for index in range(count)]
    grids = np.stack([occupancy(shape.parts, resolution) for shape in shapes])
    kinds = np.array([KINDS.index(shape.kind) for shape in shapes], dtype=np.int64)
    grids.flags.writeable = False
    kinds.flags.writeable = False
    return grids, kinds
