"""Drives the logged path `speedup` times faster: into the back of the vehicle ahead.

The path shape is kept (waypoints re-sampled at `speedup` x the logged arc length, the last
segment extended beyond 3 s), so the command and the lateral offsets barely change while the
collision rate at 2-3 s rises wherever a lead vehicle follows at the ego's speed.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.driving.params import LeadColliderParams
from methods.driving.task import PlanningInputs


class LeadCollider(Method[LeadColliderParams]):
    """The logged path at `speedup` x the logged speed."""

    reads_hidden_labels = True  # a reference: it plans from the logged future

    def run(self, inputs: PlanningInputs, ctx: RunContext) -> np.ndarray:
        return np.stack([self._faster(path) for path in np.asarray(inputs.oracle_trajectory, float)])

    def _faster(self, path: np.ndarray) -> np.ndarray:
        points = np.vstack([np.zeros(2), path])
        lengths = np.linalg.norm(np.diff(points, axis=0), axis=1)
        arc = np.concatenate([[0.0], np.cumsum(lengths)])
        if arc[-1] < 1e-6:
            return path.copy()
        target = self.params.speedup * arc[1:]
        inside = np.clip(target, 0.0, arc[-1])
        out = np.stack([np.interp(inside, arc, points[:, 0]), np.interp(inside, arc, points[:, 1])], axis=1)
        last = np.flatnonzero(lengths > 1e-6)[-1]
        direction = (points[last + 1] - points[last]) / lengths[last]
        return out + np.maximum(target - arc[-1], 0.0)[:, None] * direction
