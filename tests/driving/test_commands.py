"""The driving command rule of the SparseDrive/VAD converters: 3 s lateral offset beyond +-2 m."""
from __future__ import annotations

import numpy as np

from methods.driving.commands import GO_STRAIGHT, TURN_LEFT, TURN_RIGHT, driving_command, last_valid_lateral


def test_command_thresholds_are_inclusive_at_plus_and_minus_two_metres():
    x3 = np.array([-5.0, -2.0, -1.999, 0.0, 1.999, 2.0, 5.0])
    expected = [TURN_LEFT, TURN_LEFT, GO_STRAIGHT, GO_STRAIGHT, GO_STRAIGHT, TURN_RIGHT, TURN_RIGHT]
    assert driving_command(x3).tolist() == expected


def test_command_codes_follow_the_converters_one_hot_order():
    assert (TURN_RIGHT, TURN_LEFT, GO_STRAIGHT) == (0, 1, 2)


def test_incomplete_future_takes_its_command_from_the_last_logged_waypoint():
    trajectory = np.zeros((2, 6, 2))
    trajectory[0, :, 0] = [0.5, 1.0, 2.5, 9.0, 9.0, 9.0]   # steps 4-6 are padding
    trajectory[1, :, 0] = [0, 0, 0, 0, 0, -3.0]
    mask = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1]], bool)
    assert last_valid_lateral(trajectory, mask).tolist() == [2.5, -3.0]


def test_generated_log_commands_come_from_the_logged_3s_lateral_offset(four_segment_log):
    commands = four_segment_log.command.reshape(2, 4, 8)[:, :, 0]
    assert commands.tolist() == [[GO_STRAIGHT, TURN_RIGHT, GO_STRAIGHT, TURN_LEFT]] * 2
