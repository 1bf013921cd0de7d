"""The control itself as the output: perfectly faithful by construction (Chamfer 0, IoU 1), and as unrealistic
as a block of boxes: the faithfulness end of the trade-off."""
from __future__ import annotations

from harness import Method, RunContext
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


class CopyControl(Method):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        return {control.id: GeneratedShape(grid=control.grid) for control in inputs.controls}
