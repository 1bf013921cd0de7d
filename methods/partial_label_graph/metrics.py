"""Accuracy against the true labels, on the test graphs and (disambiguation) on the training graphs."""
from __future__ import annotations

import numpy as np

from harness import Metric


def accuracy(y_true: np.ndarray, predicted: np.ndarray) -> float:
    """Per cent of samples whose predicted class is the true one."""
    if y_true.size == 0:
        return float("nan")
    return 100.0 * float(np.mean(np.asarray(y_true) == np.asarray(predicted)))


ACCURACY = Metric(
    "accuracy", accuracy, higher_is_better=True, unit="%",
    description="test accuracy against the true labels (PRISM, Table 1)",
)
TRAIN_ACCURACY = Metric(
    "train_accuracy", accuracy, higher_is_better=True, unit="%",
    description="per cent of training graphs whose top class over all classes (not only their candidates) is the "
                "true one: how far the final model disambiguated the labels it trained on",
)
