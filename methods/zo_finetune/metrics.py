"""Classification metrics of the prompt tasks, as the paper's Table 1 prints them (percent)."""
from __future__ import annotations

import numpy as np
from sklearn.metrics import f1_score

from harness import Metric


def accuracy(labels: np.ndarray, predictions: np.ndarray) -> float:
    return float(np.mean(labels == predictions) * 100.0)


def macro_f1(labels: np.ndarray, predictions: np.ndarray) -> float:
    """CB's second SuperGLUE figure (macro-averaged F1 over its three classes), x100."""
    return float(f1_score(labels, predictions, average="macro") * 100.0)


ACCURACY = Metric("accuracy", accuracy, higher_is_better=True, unit="%",
                  description="test accuracy of option scoring (argmax of the options' log-likelihood), x100")
MACRO_F1 = Metric("macro_f1", macro_f1, higher_is_better=True, unit="%",
                  description="macro-averaged F1 over the classes, x100 (SuperGLUE's second CB figure)")
