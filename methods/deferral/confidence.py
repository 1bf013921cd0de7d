"""The fixed model's confidence, which cascades and selective prediction threshold: its top class
probability, or for regression minus a ridge estimate of its squared error fitted on the train part."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from methods.deferral.losses import loss
from methods.deferral.problem import AllocationInputs


def validation_and_test_confidence(inputs: AllocationInputs) -> tuple[np.ndarray, np.ndarray]:
    """The model's confidence on the validation queries (where thresholds are set) and the test queries."""
    confidence = model_confidence(inputs)
    return confidence(inputs.val.x, inputs.val.model_output), confidence(inputs.test_x, inputs.test_model_output)


def model_confidence(inputs: AllocationInputs) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A function of (x, model outputs) giving one confidence per sample, higher meaning more trust."""
    if inputs.kind == "classification":
        return lambda x, outputs: outputs.max(axis=1)
    from sklearn.linear_model import Ridge

    train = inputs.train
    error = Ridge(alpha=1.0).fit(np.hstack([train.x, train.model_output]),
                                 loss(inputs.kind, train.answers[:, 0], train.y))
    return lambda x, outputs: -error.predict(np.hstack([x, outputs]))
