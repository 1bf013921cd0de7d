"""FCP golden values on hand-made sequences, counted as FlowAD's released `planning_eval_response.py`.

Each case gives per-keyframe 3 s lateral offsets (ground truth and plan); the expected counts are
worked out by hand from the rules in `methods/driving/fcp.py` (spec `flowad.md`).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from methods.driving.fcp import frames_before_correct_planning as fcp
from tests.driving.conftest import four_segment_scene

S, R, L = 0.0, 4.0, -4.0   # straight, right, left 3 s lateral offsets


def run(gt: list[float], plan: list[float], scene: list[str] | None = None, complete: list[bool] | None = None, **kw):
    scene = np.array(scene or ["s"] * len(gt))
    return fcp(scene, np.array(gt), np.array(plan), None if complete is None else np.array(complete), **kw)


def lagged(gt: list[float], k: int) -> list[float]:
    """The plan of a planner that keeps the previous command's offset for k frames after each change."""
    plan, old, since = list(gt), None, None
    for i in range(1, len(gt)):
        if gt[i] != gt[i - 1]:
            old, since = gt[i - 1], 0
        if since is not None and since < k:
            plan[i] = old
        if since is not None:
            since += 1
    return plan


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_lag_k_scores_three_quarters_k_on_four_segment_scenes(k):
    gt = four_segment_scene(8)
    result = run(gt + gt, lagged(gt, k) + lagged(gt, k), scene=["a"] * 32 + ["b"] * 32)
    assert (result.frames, result.corrected, result.segments, result.never_corrected) == (6 * k, 8, 8, 0)
    assert result.fcp == pytest.approx(0.75 * k)


def test_ground_truth_plans_score_zero_with_every_segment_corrected():
    gt = four_segment_scene(5)
    result = run(gt, gt)
    assert (result.fcp, result.frames, result.corrected, result.segments) == (0.0, 0, 4, 4)


def test_never_corrected_segment_adds_frames_but_not_a_segment():
    gt, plan = [S] * 4 + [R] * 4, [S] * 8
    released = run(gt, plan)
    assert (released.frames, released.corrected, released.never_corrected, released.segments) == (4, 1, 1, 2)
    assert released.fcp == 4.0
    assert run(gt, plan, never_corrected="exclude").fcp == 0.0
    assert run(gt, plan, never_corrected="count").fcp == 2.0


def test_first_frame_of_a_scene_is_never_evaluated_unless_switched():
    gt, plan = [R, R, R], [S, R, R]
    assert run(gt, plan).fcp == 0.0
    assert run(gt, plan, first_frame="evaluate").fcp == 1.0


def test_a_scene_first_frame_alone_is_a_segment_with_nothing_evaluated():
    result = run([R, S, S], [R, S, S])
    assert (result.segments, result.corrected, result.never_corrected, result.fcp) == (2, 1, 0, 0.0)


@pytest.mark.parametrize("gt3, plan3, frames", [
    (1.0, 1.49, 0),    # same command, 0.49 m off: correct
    (1.0, 1.50, 1),    # 0.5 m off: not below 0.5 m, wrong
    (1.9, 2.1, 1),     # 0.2 m off but "turn right" against "go straight": wrong
    (-2.0, -1.9, 1),   # -2.0 is left (inclusive), -1.9 straight: wrong
])
def test_a_frame_is_correct_when_the_command_matches_and_x_is_within_half_a_metre(gt3, plan3, frames):
    result = run([gt3] * 3, [gt3, plan3, gt3])
    assert (result.frames, result.corrected) == (frames, 1)


def test_frames_after_the_first_correct_one_add_nothing():
    result = run([S] * 5, [S, S, 9.0, 9.0, 9.0])
    assert (result.frames, result.corrected, result.fcp) == (0, 1, 0.0)


def test_incomplete_future_frames_are_skipped_bookkeeping_included():
    gt, plan = [S, R, R, S, R], [S, S, R, S, S]
    skipped = run(gt, plan, complete=[True, True, True, False, True])
    assert (skipped.frames, skipped.corrected, skipped.segments) == (1, 1, 2)
    counted = run(gt, plan)
    assert (counted.frames, counted.corrected, counted.segments) == (2, 2, 4)


def test_a_new_scene_opens_a_new_segment_even_with_the_same_command():
    result = run([S] * 6, [S, S, S, 9.0, 9.0, S], scene=["a"] * 3 + ["b"] * 3)
    assert (result.segments, result.frames, result.corrected, result.fcp) == (2, 1, 2, 0.5)


def test_nothing_corrected_gives_nan_instead_of_the_released_division_by_zero():
    result = run([R] * 3, [S] * 3)
    assert math.isnan(result.fcp) and result.frames == 2
    assert run([R] * 3, [S] * 3, never_corrected="count").fcp == 2.0


def test_unknown_switch_values_are_rejected():
    with pytest.raises(ValueError, match="never_corrected"):
        run([S], [S], never_corrected="sometimes")
    with pytest.raises(ValueError, match="first_frame"):
        run([S], [S], first_frame="maybe")
