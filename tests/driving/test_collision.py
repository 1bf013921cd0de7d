"""Collision geometries on hand-made boxes: raster (unrotated ego on a 0.5 m grid) vs polygon (rotated)."""
from __future__ import annotations

import numpy as np
import pytest

from methods.driving.collision import collisions, ego_footprint_cells, plan_yaw
from methods.driving.evaluation import PlanningEvaluation
from methods.driving.metrics import METRICS
from tests.driving.conftest import make_log

RIGHTWARD = np.array([[[3.0 * i, 0.0] for i in range(1, 7)]])   # heading +x: the rotated box lies along x


def hits(geometry: str, plans: np.ndarray, box: tuple, step: int = 1) -> list[bool]:
    return collisions(geometry, plans, np.array([box], float), np.array([0]), np.array([step]))[0].tolist()


def test_footprint_is_the_32_cells_of_a_4084_by_1850_box_shifted_half_a_metre_forward():
    cells = ego_footprint_cells()
    assert cells.shape == (32, 2)
    centres = -49.75 + 0.5 * cells
    assert sorted(set(centres[:, 0])) == [-1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 1.75, 2.25]
    assert sorted(set(centres[:, 1])) == [-0.75, -0.25, 0.25, 0.75]


def test_both_geometries_see_a_box_on_the_waypoint():
    plans = np.array([[[0.0, 3.0 * i] for i in range(1, 7)]])
    box = (0.0, 3.0, 4.5, 1.9, np.pi / 2)
    assert hits("raster", plans, box) == hits("polygon", plans, box) == [True] + [False] * 5


def test_unrotated_raster_footprint_hits_beside_a_turned_ego_where_the_polygon_does_not():
    beside = (3.0, 2.2, 0.5, 0.5, 0.0)          # 2.2 m to the left of a car heading +x
    assert hits("raster", RIGHTWARD, beside)[0] is True
    assert hits("polygon", RIGHTWARD, beside)[0] is False


def test_rotated_polygon_hits_ahead_of_a_turned_ego_where_the_raster_does_not():
    ahead = (5.5, 0.0, 0.5, 0.5, 0.0)           # 2.5 m ahead of the waypoint along the heading
    assert hits("polygon", RIGHTWARD, ahead)[0] is True
    assert hits("raster", RIGHTWARD, ahead)[0] is False


def test_boxes_meet_only_their_own_future_step_and_current_boxes_are_ignored():
    plans = np.array([[[0.0, 3.0 * i] for i in range(1, 7)]])
    box = (0.0, 9.0, 4.5, 1.9, np.pi / 2)       # on waypoint 3
    assert hits("polygon", plans, box, step=3) == [False, False, True, False, False, False]
    assert hits("polygon", plans, box, step=0) == [False] * 6


def test_raster_clips_off_grid_waypoints_to_the_border_as_released():
    plans = np.zeros((1, 6, 2))
    plans[0, :, 0] = 80.0                        # 30 m beyond the grid's right edge
    border = (49.75, 0.5, 0.5, 3.0, 0.0)
    assert hits("raster", plans, border)[0] is True
    assert hits("polygon", plans, border)[0] is False


def test_plan_yaw_uses_central_differences_from_the_origin():
    plan = np.array([[[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0], [4.0, 1.0], [5.0, 1.0]]])
    yaw = plan_yaw(plan)[0]
    assert yaw[0] == pytest.approx(np.pi / 4)    # (1, 1) - (0, 0)
    assert yaw[1:] == pytest.approx(np.zeros(5))


def test_plan_yaw_faces_ahead_when_first_and_last_waypoints_are_within_half_a_metre():
    still = np.tile([3.0, 0.0], (1, 6, 1))       # moved from the origin, then stood still
    assert plan_yaw(still)[0] == pytest.approx(np.full(6, np.pi / 2))
    assert plan_yaw(RIGHTWARD)[0] == pytest.approx(np.zeros(6))


def test_steps_where_the_logged_path_collides_count_as_none_but_stay_in_the_denominator():
    log = make_log({"s": [0.0, 0.0]}, boxes=[(0, 1, (0.0, 3.0, 4.5, 1.9, np.pi / 2)),     # on the logged path
                                             (1, 2, (5.0, 6.0, 4.5, 1.9, np.pi / 2))])    # beside it
    plans = log.gt_trajectory.copy()
    plans[1, 1] = [5.0, 6.0]                    # frame 1 drives into the second box at step 2
    evaluation = PlanningEvaluation(log, plans)
    for geometry in ("raster", "polygon"):
        assert evaluation.logged_collision_per_step(geometry).tolist() == [50.0, 0, 0, 0, 0, 0]
        assert evaluation.collision_per_step(geometry).tolist() == [0, 50.0, 0, 0, 0, 0]
    assert METRICS["collision_1s_stp3_polygon"](evaluation) == 25.0
    assert METRICS["collision_1s_uniad_polygon"](evaluation) == 50.0
    assert METRICS["collision_avg_uniad_raster"](evaluation) == pytest.approx(50.0 / 3)
    assert METRICS["collision_avg_stp3_raster"](evaluation) == pytest.approx((25 + 12.5 + 50 / 6) / 3)


def test_unknown_geometry_is_rejected():
    with pytest.raises(ValueError, match="raster, polygon"):
        hits("voxel", RIGHTWARD, (0, 0, 1, 1, 0))
