"""The simulation's ground-truth Poisson rate: the ceiling no model of the spikes can pass on average (single-
trial r of the true rate is limited by Poisson noise alone). Neural columns only; it reads the hidden rates."""
from __future__ import annotations

from harness import Method, RunContext
from methods.neural_encoding.columns import BY_NAME
from methods.neural_encoding.oracle import oracle_predictions
from methods.neural_encoding.problem import EncodingInputs, Predictions


class GroundTruthRate(Method):
    reads_hidden_labels = True

    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        return oracle_predictions(inputs, lambda oracle: oracle.rates,
                                  [name for name in inputs.test if BY_NAME[name].is_neural])
