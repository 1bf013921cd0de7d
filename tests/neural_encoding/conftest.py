"""Shared problems for the neural-encoding tests: a small simulated cortex and a run helper."""
from __future__ import annotations

import pytest

from harness import Instance
from methods.neural_encoding.cortex import CortexSpec
from methods.neural_encoding.task import NeuralEncoding

TASK = NeuralEncoding()
SMALL = CortexSpec(sessions=2, neurons=16, train_trials=24, test_movies=3, repeats=3, time_bins=16, frame=12)


@pytest.fixture(scope="session")
def small_instance() -> Instance:
    return TASK.instance(SMALL, {}, 0)
