"""Weight selection (Xu et al., ICLR 2024, "Initializing Models with Larger Ones"): the student inherits the
source's first layers and, in every weight, evenly spaced hidden channels, heads and FFN neurons."""
from __future__ import annotations

from typing import Any

from harness import RunContext
from methods.model_init.inherit import fitting_shapes, inherit, uniform_plan
from methods.model_init.method import Initialiser, Origins
from methods.model_init.params import InitParams
from methods.model_init.task import InitInputs


class WeightSelection(Initialiser[InitParams]):
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        big, small = fitting_shapes(source, student)
        plan = uniform_plan(big, small, range(small.layers))
        inherit(student, source, plan)
        return [[layer] for layer in plan.layers]
