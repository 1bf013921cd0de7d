"""A planner that reacts k keyframes late to every change of driving command.

For the first `lag` keyframes after the command changes within a scene it keeps planning for
the previous command (the logged forward progress with that command's lateral profile),
then it copies the logged future. Under FlowAD's released counting it scores FCP = k x (the
share of segments that start with a change), i.e. 0.75 k on scenes of 4 command segments.
"""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.driving.commands import GO_STRAIGHT, TURN_LEFT, TURN_RIGHT
from methods.driving.params import CommandLagParams
from methods.driving.task import PlanningInputs

# Lateral offset (m) at 3 s of the stale plan for each old command: clearly that command (|x| >= 2 m).
STALE_LATERAL_3S = {TURN_RIGHT: 3.0, TURN_LEFT: -3.0, GO_STRAIGHT: 0.0}


class CommandLag(Method[CommandLagParams]):
    """Copies the logged future except for `lag` keyframes after each command change."""

    reads_hidden_labels = True  # a reference: it plans from the logged future

    def run(self, inputs: PlanningInputs, ctx: RunContext) -> np.ndarray:
        plans = np.array(inputs.oracle_trajectory, dtype=np.float64)
        old_command, since_change = None, None
        for i in range(len(inputs)):
            new_scene = i == 0 or inputs.scene[i] != inputs.scene[i - 1]
            if new_scene:
                old_command, since_change = None, None
            elif inputs.command[i] != inputs.command[i - 1]:
                old_command, since_change = int(inputs.command[i - 1]), 0
            if old_command is not None and since_change is not None and since_change < self.params.lag:
                share = (np.arange(1, 7) / 6.0) ** 2
                plans[i, :, 0] = STALE_LATERAL_3S[old_command] * share
            if since_change is not None:
                since_change += 1
        return plans
