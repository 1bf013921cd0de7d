"""Retrieval: the training shape with the highest voxel IoU to the control. Real by construction (its
nearest-training distance is 0) and as faithful as the training set allows: the bar a generator must clear to
be worth more than a lookup."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.shape_control.metrics import nearest_jaccard_distance
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


class NearestShape(Method):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        training = inputs.source.models.training_grids()
        found = {}
        for control in inputs.controls:
            distances = nearest_jaccard_distance(training, control.grid[None])  # each training shape's distance
            found[control.id] = GeneratedShape(grid=training[int(np.argmin(distances))])
        return found
