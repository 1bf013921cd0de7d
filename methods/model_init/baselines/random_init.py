"""Random initialisation: the student as transformers initialises it (normal, std 0.02), seeded by the run."""
from __future__ import annotations

from typing import Any, TypeVar

from harness import RunContext
from methods.model_init.method import Initialiser, Origins, evenly_spaced_layers
from methods.model_init.models import model_shape
from methods.model_init.params import InitParams
from methods.model_init.task import InitInputs


P = TypeVar("P", bound=InitParams)


class RandomInit(Initialiser[P]):
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        layers = evenly_spaced_layers(model_shape(source).layers, model_shape(student).layers)
        return [[layer] for layer in layers]
