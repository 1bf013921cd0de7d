"""Unconditional sampling: the flow from pure noise, blind to the control (SpaceControl at tau0 = 1, drawn from
the same noise): the realism end of the trade-off."""
from __future__ import annotations

from harness import Method, RunContext
from methods.shape_control.params import FlowParams
from methods.shape_control.spacecontrol import flow_samples
from methods.shape_control.task import ControlInputs, Generated


class Unconditional(Method[FlowParams]):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        return flow_samples(inputs, 1.0, self.params.steps, ctx.seed)
