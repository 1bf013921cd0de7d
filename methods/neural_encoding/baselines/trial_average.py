"""The trial-average predictor: each test trial's prediction is the mean response of the other repeats of its
movie (leave-one-out). It knows the stimulus perfectly and nothing of the trial's own behaviour or noise, so it
bounds what a stimulus-only model can reach. It reads other test trials (`reads_hidden_labels`): neural
columns only."""
from __future__ import annotations

from harness import Method, RunContext
from methods.neural_encoding.columns import BY_NAME
from methods.neural_encoding.oracle import oracle_predictions
from methods.neural_encoding.problem import EncodingInputs, Predictions


class TrialAverage(Method):
    reads_hidden_labels = True

    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        return oracle_predictions(inputs, lambda oracle: oracle.repeat_mean,
                                  [name for name in inputs.test if BY_NAME[name].is_neural])
