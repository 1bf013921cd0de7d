"""Weight selection (Xu et al., ICLR 2024, "Initializing Models with Larger Ones"): the student inherits the
source's first layers and, in every weight, evenly spaced hidden channels, heads and FFN neurons."""
from __future__ import annotations

from typing import Any

from harness import RunContext
from methods.model_init.inherit import inherit, uniform_plan
from methods.model_init.method import Initialiser, Origins
from methods.model_init.models import model_shape
from methods.model_init.task import InitInputs


class WeightSelection(Initialiser):
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        plan = uniform_plan(model_shape(source), model_shape(student), range(model_shape(student).layers))
        inherit(student, source, plan)
        return [[layer] for layer in plan.layers]
