"""Replays a user's predicted traces (the `traces` loader, methods.neural_encoding.byo) for scoring."""
from __future__ import annotations

from harness import DataError, Method, RunContext
from methods.neural_encoding.problem import EncodingInputs, Predictions


class RecordedPredictions(Method):
    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        if inputs.recorded is None:
            raise DataError("the `recorded` method replays bring-your-own traces; this dataset is simulated",
                            field="method", hint="Use the `traces` loader with it.")
        return {column: list(arrays) for column, arrays in inputs.recorded.items()}
