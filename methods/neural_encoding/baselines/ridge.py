"""Per-neuron linear-nonlinear encoders fitted by ridge regression (scikit-learn's `RidgeCV`), one per column
and session on that session's training trials: the classical system-identification baseline. Features at bin t
are what the column shows: the frames t, t-1, t-2 (stimulus columns), the behaviour (neural columns), the
observed neurons at t (population columns, and the behaviour decoders), and each neuron's mean and last count
of the context (forecast columns). Neural outputs are rectified at zero (the LN model's output nonlinearity)."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.neural_encoding.columns import BY_NAME, Column, context_bins
from methods.neural_encoding.movies import lagged_frames
from methods.neural_encoding.params import RidgeParams
from methods.neural_encoding.problem import EncodingInputs, Predictions
from methods.neural_encoding.training import check_train_sessions


def column_features(column: Column, spikes: np.ndarray, behaviour: np.ndarray, video: np.ndarray | None) -> np.ndarray:
    """(trials, T, features) of what `column` shows at each bin."""
    trials, time_bins, neurons = spikes.shape
    seen = np.log1p(spikes * column.neural_input(time_bins, neurons))
    parts = [behaviour[..., column.behaviour_input()]]
    if column.video and video is not None:
        parts.append(lagged_frames(video).reshape(trials, time_bins, -1))
    if column.neural == "forecast":
        context = seen[:, : context_bins(time_bins)]
        summary = np.concatenate([context.mean(axis=1), context[:, -1]], axis=1)
        parts.append(np.repeat(summary[:, None], time_bins, axis=1))
    else:
        parts.append(seen[..., column.neural_input(time_bins, neurons).any(axis=0)])
    return np.concatenate(parts, axis=2)


def _targets(column: Column, spikes: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
    source = spikes if column.is_neural else behaviour
    return source[:, column.target_times(spikes.shape[1])][:, :, column.target_units(spikes.shape[2])]


class RidgeEncoder(Method[RidgeParams]):
    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        from sklearn.linear_model import RidgeCV
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        sessions = check_train_sessions(inputs, None)
        out: Predictions = {}
        for name, views in inputs.test.items():
            column = BY_NAME[name]
            out[name] = []
            for train, view in zip(sessions, views, strict=False):
                times = column.target_times(train.spikes.shape[1])
                x = column_features(column, train.spikes, train.behaviour, train.video)[:, times]
                y = _targets(column, train.spikes, train.behaviour)
                model = make_pipeline(StandardScaler(), RidgeCV(alphas=self.params.alphas))
                model.fit(x.reshape(-1, x.shape[2]), y.reshape(-1, y.shape[2]))
                test_x = column_features(column, view.spikes, view.behaviour, view.video)[:, times]
                predicted = model.predict(test_x.reshape(-1, x.shape[2])).reshape(test_x.shape[0], times.size, -1)
                out[name].append(np.maximum(predicted, 0.0) if column.is_neural else predicted)
        return out
