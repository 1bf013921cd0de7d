"""Reference planners give their known answers on hand-made logs."""
from __future__ import annotations

import numpy as np
import pytest

from harness import RunContext
from methods.driving.baselines.command_lag import CommandLag
from methods.driving.baselines.constant_velocity import ConstantVelocity
from methods.driving.baselines.gt_copy import GroundTruthCopy
from methods.driving.baselines.lateral_noise import LateralNoise
from methods.driving.baselines.lead_collider import LeadCollider
from methods.driving.metrics import METRICS
from methods.driving.task import OpenLoopPlanning
from tests.driving.conftest import make_log

TASK = OpenLoopPlanning()
CTX = RunContext(seed=0, device="cpu", threads=1)


def score(log, planner, *names):
    instance = TASK.instance(log, {}, 0)
    table = TASK.predictions(instance, planner.run(instance.inputs, CTX))
    return TASK.score(instance, table, {n: METRICS[n] for n in names})


def test_ground_truth_copy_scores_zero_l2_and_zero_fcp(four_segment_log):
    assert score(four_segment_log, GroundTruthCopy(), "l2_avg_stp3", "l2_avg_uniad", "fcp") == {
        "l2_avg_stp3": 0.0, "l2_avg_uniad": 0.0, "fcp": 0.0}


@pytest.mark.parametrize("lag", [1, 2, 3])
def test_command_lag_planner_scores_three_quarters_of_its_lag(four_segment_log, lag):
    result = score(four_segment_log, CommandLag(lag=lag), "fcp", "fcp_frames", "fcp_corrected")
    assert result == {"fcp": pytest.approx(0.75 * lag), "fcp_frames": 6 * lag, "fcp_corrected": 8}


def test_constant_velocity_is_exact_on_a_straight_constant_speed_drive():
    log = make_log({"s": [0.0] * 10})
    assert score(log, ConstantVelocity(), "l2_avg_stp3")["l2_avg_stp3"] == pytest.approx(0.0)


def test_constant_velocity_never_corrects_a_turn():
    log = make_log({"s": [0.0] * 4 + [4.0] * 6})
    result = score(log, ConstantVelocity(), "fcp_never_corrected", "fcp_frames")
    assert result == {"fcp_never_corrected": 1, "fcp_frames": 6}


def test_lateral_noise_l2_matches_the_half_normal_mean():
    log = make_log({f"s{i}": [0.0] * 50 for i in range(20)})
    l2 = score(log, LateralNoise(sigma=0.4), "l2_1s_uniad")["l2_1s_uniad"]
    assert l2 == pytest.approx(0.4 * np.sqrt(2 / np.pi), rel=0.05)


def test_lateral_noise_is_reproducible_per_seed(four_segment_log):
    inputs = TASK.instance(four_segment_log, {}, 0).inputs
    planner = LateralNoise(sigma=0.5)
    assert np.array_equal(planner.run(inputs, CTX), planner.run(inputs, CTX))


def test_lead_collider_hits_a_lead_car_the_logged_path_follows():
    frames = 8
    lead = [(f, s, (0.0, 11.0 + 3.0 * s, 4.5, 1.9, np.pi / 2)) for f in range(frames) for s in range(7)]
    log = make_log({"s": [0.0] * frames}, boxes=lead)
    result = score(log, LeadCollider(speedup=1.5), "collision_3s_uniad_polygon", "collision_3s_uniad_raster")
    assert result == {"collision_3s_uniad_polygon": 100.0, "collision_3s_uniad_raster": 100.0}
    assert score(log, GroundTruthCopy(), "collision_3s_uniad_polygon")["collision_3s_uniad_polygon"] == 0.0


@pytest.mark.parametrize("make", [lambda: CommandLag(lag=-1), lambda: CommandLag(lag=1.5),
                                  lambda: LateralNoise(sigma=-0.1), lambda: LeadCollider(speedup=0)])
def test_invalid_parameters_are_rejected(make):
    with pytest.raises(ValueError):
        make()
