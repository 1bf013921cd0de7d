"""The motion contract: the truth scores perfectly, the prior does not, malformed outputs are refused, and the
methods improve on what they are given where the family says they should."""
from __future__ import annotations

import math

import numpy as np
import pytest

from harness.context import RunContext
from methods.dynamic_splatting import metrics
from methods.dynamic_splatting.task import DynamicMotion, MotionEstimate

ALL = {name: getattr(metrics, name.upper()) for name in (
    "psnr_extreme", "ssim_extreme", "mpsnr_extreme", "mssim_extreme", "epe", "epe_occluded", "pck",
    "uncertainty_spearman")}


@pytest.fixture(scope="module")
def tiny():
    return DynamicMotion().tiny_instance(seed=0)


def test_the_true_motion_scores_perfectly(tiny):
    task = DynamicMotion()
    truth = tiny.truth.scene.positions
    scores = task.score(tiny, task.predictions(tiny, MotionEstimate(truth)), ALL)
    assert scores["epe"] == 0 and scores["pck"] == 100 and math.isinf(scores["psnr_extreme"])
    assert scores["ssim_extreme"] == pytest.approx(1.0) and scores["uncertainty_spearman"] == 0.0


def test_the_prior_is_exact_at_frame_0_and_wrong_later(tiny):
    task = DynamicMotion()
    prior = tiny.inputs.prior
    np.testing.assert_array_equal(prior[0], tiny.truth.scene.positions[0])
    scores = task.score(tiny, task.predictions(tiny, MotionEstimate(prior)), ALL)
    assert scores["epe"] > 0.02 and scores["epe_occluded"] > scores["epe"]


def test_a_perfect_uncertainty_ranks_the_error_with_rho_one(tiny):
    task = DynamicMotion()
    prior = tiny.inputs.prior
    error = np.linalg.norm(prior - tiny.truth.scene.positions, axis=-1).mean(0)
    table = task.predictions(tiny, MotionEstimate(prior, uncertainty=error, assessed=prior))
    assert task.score(tiny, table, ALL)["uncertainty_spearman"] == pytest.approx(1.0)


def test_inputs_carry_no_ground_truth_motion(tiny):
    assert not np.array_equal(tiny.inputs.prior[1:], tiny.truth.scene.positions[1:])
    assert not hasattr(tiny.inputs, "positions")


@pytest.mark.parametrize("bad, message", [(np.zeros((2, 2, 3)), "positions must be"), ("x", "MotionEstimate")])
def test_malformed_outputs_are_refused(tiny, bad, message):
    output = MotionEstimate(bad) if isinstance(bad, np.ndarray) else bad
    with pytest.raises(ValueError, match=message):
        DynamicMotion().predictions(tiny, output)


def test_usplat4d_rates_its_pretrained_motion_and_its_uncertainty_ranks_the_error(tiny):
    from methods.dynamic_splatting.usplat4d import USplat4D

    output = USplat4D(pretrain_steps=10, refine_steps=10).run(tiny.inputs, RunContext(seed=0, device="cpu", threads=1))
    task = DynamicMotion()
    scores = task.score(tiny, task.predictions(tiny, output), ALL)
    assert output.uncertainty is not None and output.assessed is not None
    assert scores["uncertainty_spearman"] > 0.2


def test_the_region_breakdown_partitions_the_views_and_the_truth_scores_perfectly_in_each(tiny):
    from methods.dynamic_splatting import calibration, view_breakdown
    from methods.dynamic_splatting.scenes import BACKGROUND, STATIC

    task = DynamicMotion()
    regions = {name: getattr(view_breakdown, name) for name in ("PSNR_MOVING", "PSNR_STATIC", "PSNR_BACKGROUND",
                                                                "PSNR_SEGMENT_0", "PSNR_SEGMENT_1")}
    truth = task.score(tiny, task.predictions(tiny, MotionEstimate(tiny.truth.scene.positions)), regions)
    assert all(math.isinf(value) for value in truth.values())
    for view in tiny.truth.extreme:
        assert set(np.unique(view.regions)) <= {BACKGROUND, STATIC, 0, 1}
        assert (view.regions >= 0).any() and not (view.unseen & (view.regions == BACKGROUND)).any()
    prior = task.score(tiny, task.predictions(tiny, MotionEstimate(tiny.inputs.prior)),
                       {**regions, "scene": view_breakdown.OCCLUDED_PAIR_SHARE,
                        "vis": calibration.VISIBILITY_SPEARMAN})
    assert prior["PSNR_MOVING"] < 40 and 0 < prior["scene"] < 100


def test_segment_aware_usplat4d_records_no_cross_segment_weight(tiny):
    from methods.dynamic_splatting.usplat4d import USplat4D

    context = RunContext(seed=0, device="cpu", threads=1)
    USplat4D(pretrain_steps=4, refine_steps=2, segment_aware=True).run(tiny.inputs, context)
    assert context.measurements["cross_segment_weight"].value == 0.0
