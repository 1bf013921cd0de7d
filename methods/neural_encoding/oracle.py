"""The reference predictors' shared step: a per-session array the oracle holds, cut to each column's targets."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness import DataError
from methods.neural_encoding.problem import EncodingInputs, Oracle, Predictions


def oracle_predictions(inputs: EncodingInputs, source: Callable[[Oracle], np.ndarray],
                       columns: list[str]) -> Predictions:
    if inputs.oracle is None:
        raise DataError("this reference predictor needs the simulation's rates and repeats; recorded traces have "
                        "none", field="method")
    return {name: [source(oracle)[:, view.times][:, :, view.units]
                   for oracle, view in zip(inputs.oracle, inputs.test[name], strict=True)] for name in columns}
