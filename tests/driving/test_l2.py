"""L2 under both conventions: stp3 = mean of the steps up to t, uniad = the step at t."""
from __future__ import annotations

import numpy as np
import pytest

from methods.driving.evaluation import PlanningEvaluation
from methods.driving.l2 import at_horizon, horizon_average, l2_per_frame
from methods.driving.metrics import METRICS

PER_STEP = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


@pytest.mark.parametrize("seconds, stp3, uniad", [(1, 1.5, 2.0), (2, 2.5, 4.0), (3, 3.5, 6.0)])
def test_horizon_values_under_each_convention(seconds, stp3, uniad):
    assert at_horizon(PER_STEP, seconds, "stp3") == stp3
    assert at_horizon(PER_STEP, seconds, "uniad") == uniad


def test_avg_is_the_mean_of_the_1_2_3_second_values():
    assert horizon_average(PER_STEP, "stp3") == pytest.approx((1.5 + 2.5 + 3.5) / 3)
    assert horizon_average(PER_STEP, "uniad") == pytest.approx((2 + 4 + 6) / 3)


def test_unknown_convention_is_rejected():
    with pytest.raises(ValueError, match="stp3, uniad"):
        at_horizon(PER_STEP, 1, "vad")


def test_l2_is_the_euclidean_error_per_step():
    planned = np.zeros((1, 6, 2))
    logged = np.zeros((1, 6, 2))
    logged[0, :, 0], logged[0, :, 1] = 3.0, 4.0
    assert l2_per_frame(planned, logged).tolist() == [[5.0] * 6]


def test_metrics_score_a_linearly_growing_offset_golden(four_segment_log):
    plans = four_segment_log.gt_trajectory.copy()
    plans[:, :, 1] += 0.1 * np.arange(1, 7)           # 0.1 m more error per step: 0.1, 0.2, ..., 0.6
    evaluation = PlanningEvaluation(four_segment_log, plans)
    assert evaluation.l2_per_step == pytest.approx(0.1 * np.arange(1, 7))
    expected = {"l2_1s_stp3": 0.15, "l2_2s_stp3": 0.25, "l2_3s_stp3": 0.35, "l2_avg_stp3": 0.25,
                "l2_1s_uniad": 0.2, "l2_2s_uniad": 0.4, "l2_3s_uniad": 0.6, "l2_avg_uniad": 0.4}
    for name, value in expected.items():
        assert METRICS[name](evaluation) == pytest.approx(value), name


def test_frames_with_an_incomplete_future_are_not_scored():
    from tests.driving.conftest import make_log

    log = make_log({"s": [0.0, 0.0, 0.0]}, incomplete={("s", 2)})
    plans = log.gt_trajectory.copy()
    plans[2] += 100.0                                   # a wild plan on the unscored frame changes nothing
    assert PlanningEvaluation(log, plans).l2_per_step == pytest.approx(np.zeros(6))
