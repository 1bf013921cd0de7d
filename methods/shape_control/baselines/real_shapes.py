"""Reference rows, not generators: `RealShapes` returns a fresh draw of real shapes, one per control and blind to
it (furniture.REAL_STREAM, independent of the reference shapes the Fréchet distance compares with), so its
Fréchet distance is what a perfect generator scores at the test set's size: the metric's noise floor. `TrueShapes`
returns the shape each control was derived from (generated data only): the ideal of faithfulness to the true
shape, and a second sample of the floor."""
from __future__ import annotations

from harness import Method, RunContext
from methods.shape_control.furniture import REAL_STREAM, generate
from methods.shape_control.superquadric import occupancy
from methods.shape_control.task import ControlInputs, Generated, GeneratedShape


class RealShapes(Method):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        side = inputs.source.models.resolution
        return {control.id: GeneratedShape(grid=occupancy(generate(REAL_STREAM, inputs.seed, index).parts, side))
                for index, control in enumerate(inputs.controls)}


class TrueShapes(Method):
    def run(self, inputs: ControlInputs, ctx: RunContext) -> Generated:
        missing = [control.id for control in inputs.controls if control.truth is None]
        if missing:
            raise ValueError(f"control '{missing[0]}' has no true shape: `true_shape` needs the generated dataset")
        return {control.id: GeneratedShape(grid=control.truth) for control in inputs.controls}
