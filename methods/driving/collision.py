"""Collision of a planned ego trajectory with the logged future boxes of the other agents.

Two geometries, as the spec (`flowad.md`) and the released code describe them:

- `raster` (ST-P3 / UniAD / VAD `PlanningMetric`): the agents occupy a 200 x 200 BEV grid of
  0.5 m cells over +-50 m; the ego footprint is the set of cells whose centres lie in a
  4.084 m x 1.85 m box shifted 0.5 m forward and **not rotated**, computed once at the
  origin and moved by each waypoint (cell index = int(footprint index + position / 0.5),
  truncated, then clipped to the grid, as released). A step collides if any footprint cell is
  occupied. We occupy a cell when its centre lies in an agent box; UniAD rasterises its
  occupancy labels from the same boxes with a polygon fill, which we do not reproduce pixel
  for pixel.
- `polygon` (SparseDrive / FlowAD `planning_eval.py`): shapely intersection of the ego box
  (4.084 m long, 1.85 m wide) with each agent box, the ego centre shifted 0.5 m forward along
  its heading. The heading comes from central differences of the plan with the origin
  prepended (the last step: a backward difference); if the first and last waypoints are
  less than 0.5 m apart, every heading is pi/2 (facing +y, straight ahead), as released.

Frames are the current LiDAR frame (x right, y forward). A box is (x, y, length, width, yaw)
with its length along the heading and yaw measured from +x. Waypoint j (1..6) meets the boxes
of the j-th future keyframe.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

Geometry = Literal["raster", "polygon"]
GEOMETRIES: tuple[Geometry, ...] = ("raster", "polygon")

EGO_LENGTH_M = 4.084
EGO_WIDTH_M = 1.85
EGO_FORWARD_SHIFT_M = 0.5
CELL_M = 0.5
GRID_CELLS = 200
GRID_LOW_M = -50.0
STATIONARY_M = 0.5


def collisions(geometry: Geometry, plans: np.ndarray, boxes: np.ndarray, box_frame: np.ndarray,
               box_step: np.ndarray) -> np.ndarray:
    """(N, 6) bool: does frame n's plan hit an agent at step j? Box rows with step 0 (now) are ignored."""
    plans = np.asarray(plans, dtype=np.float64)
    hit = np.zeros(plans.shape[:2], dtype=bool)
    future = np.asarray(box_step) >= 1
    if not future.any():
        return hit
    boxes, frame = np.asarray(boxes, float)[future], np.asarray(box_frame)[future]
    step = np.asarray(box_step)[future] - 1
    if geometry == "raster":
        rows_hit = _raster_hits(plans[frame, step], boxes)
    elif geometry == "polygon":
        yaw = plan_yaw(plans)
        rows_hit = _polygon_hits(plans[frame, step], yaw[frame, step], boxes)
    else:
        raise ValueError(f"unknown collision geometry {geometry!r}; use one of {', '.join(GEOMETRIES)}")
    np.logical_or.at(hit, (frame[rows_hit], step[rows_hit]), True)
    return hit


def ego_footprint_cells() -> np.ndarray:
    """(32, 2) grid indices (row = forward y, column = lateral x) of the unrotated ego footprint at the origin."""
    centres = GRID_LOW_M + CELL_M / 2 + CELL_M * np.arange(GRID_CELLS)
    forward = np.flatnonzero((centres >= -EGO_LENGTH_M / 2 + EGO_FORWARD_SHIFT_M)
                             & (centres <= EGO_LENGTH_M / 2 + EGO_FORWARD_SHIFT_M))
    lateral = np.flatnonzero(np.abs(centres) <= EGO_WIDTH_M / 2)
    rows, cols = np.meshgrid(forward, lateral, indexing="ij")
    return np.stack([rows.ravel(), cols.ravel()], axis=1)


def _raster_hits(waypoints: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For each (waypoint, box) row pair: is any shifted footprint cell's centre inside the box?"""
    footprint = ego_footprint_cells()
    rows = np.trunc(footprint[None, :, 0] + waypoints[:, None, 1] / CELL_M).astype(np.int64)
    cols = np.trunc(footprint[None, :, 1] + waypoints[:, None, 0] / CELL_M).astype(np.int64)
    rows, cols = np.clip(rows, 0, GRID_CELLS - 1), np.clip(cols, 0, GRID_CELLS - 1)
    centre_x = GRID_LOW_M + CELL_M / 2 + CELL_M * cols
    centre_y = GRID_LOW_M + CELL_M / 2 + CELL_M * rows
    dx, dy = centre_x - boxes[:, None, 0], centre_y - boxes[:, None, 1]
    cos, sin = np.cos(boxes[:, None, 4]), np.sin(boxes[:, None, 4])
    along, across = dx * cos + dy * sin, -dx * sin + dy * cos
    inside = (np.abs(along) <= boxes[:, None, 2] / 2) & (np.abs(across) <= boxes[:, None, 3] / 2)
    return inside.any(axis=1)


def plan_yaw(plans: np.ndarray) -> np.ndarray:
    """(N, 6) headings of (N, 6, 2) plans: central differences with the origin prepended, as released."""
    plans = np.asarray(plans, dtype=np.float64)
    padded = np.concatenate([np.zeros((plans.shape[0], 1, 2)), plans], axis=1)
    yaw = np.empty(plans.shape[:2])
    central = padded[:, 2:] - padded[:, :-2]
    yaw[:, :-1] = np.arctan2(central[..., 1], central[..., 0])
    last = padded[:, -1] - padded[:, -2]
    yaw[:, -1] = np.arctan2(last[:, 1], last[:, 0])
    stationary = np.linalg.norm(plans[:, -1] - plans[:, 0], axis=-1) < STATIONARY_M
    yaw[stationary] = np.pi / 2
    return yaw


def box_corners(boxes: np.ndarray) -> np.ndarray:
    """(K, 4, 2) corners of (K, 5) boxes (x, y, length, width, yaw), counter-clockwise."""
    boxes = np.asarray(boxes, dtype=np.float64)
    half_l, half_w = boxes[:, 2:3] / 2, boxes[:, 3:4] / 2
    local = np.stack([np.hstack([half_l, half_w]), np.hstack([-half_l, half_w]),
                      np.hstack([-half_l, -half_w]), np.hstack([half_l, -half_w])], axis=1)
    cos, sin = np.cos(boxes[:, 4])[:, None], np.sin(boxes[:, 4])[:, None]
    x = boxes[:, None, 0] + local[..., 0] * cos - local[..., 1] * sin
    y = boxes[:, None, 1] + local[..., 0] * sin + local[..., 1] * cos
    return np.stack([x, y], axis=-1)


def ego_boxes(waypoints: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """(K, 5) ego boxes at `waypoints` with headings `yaw`, centres shifted 0.5 m forward along the heading."""
    centre = waypoints + EGO_FORWARD_SHIFT_M * np.stack([np.cos(yaw), np.sin(yaw)], axis=-1)
    size = np.broadcast_to([EGO_LENGTH_M, EGO_WIDTH_M], centre.shape)
    return np.column_stack([centre, size, yaw])


def _polygon_hits(waypoints: np.ndarray, yaw: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    import shapely

    ego = shapely.polygons(box_corners(ego_boxes(waypoints, yaw)))
    agents = shapely.polygons(box_corners(boxes))
    return shapely.intersects(ego, agents)
