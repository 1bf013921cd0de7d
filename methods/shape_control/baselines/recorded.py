"""Your generator's recorded shapes (the `byo` dataset's `shape` entries), replayed as a method so they are
scored and tabulated like every method's."""
from __future__ import annotations

from harness import Method, RunContext
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


class RecordedShapes(Method):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        recorded = inputs.source.recorded or {}
        missing = [control.id for control in inputs.controls if control.id not in recorded]
        if missing:
            raise ValueError(f"{len(missing)} control(s) have no recorded shape, e.g. '{missing[0]}': give each "
                             "line of the byo dataset's JSONL a 'shape'")
        return {control.id: GeneratedShape(grid=recorded[control.id].grid, points=recorded[control.id].points)
                for control in inputs.controls}
