"""Neural encoding (OmniMouse miniature), one torch thread: simulating a cortex (the issue's 20 sessions x 200
neurons, its target under 60 s, and the suites' 4 x 48) and 50 training steps of the masked multi-modal
transformer on it, the hot path of every model run."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def instance():
    from methods.neural_encoding.cortex import cortex_spec
    from methods.neural_encoding.task import NeuralEncoding

    return NeuralEncoding().instance(cortex_spec(frame=12, train_trials=40), {}, 0)


def test_simulate_the_suites_cortex(benchmark):
    """4 sessions x 48 LNP neurons, 52 trials of 32 bins each, 12-pixel frames."""
    from methods.neural_encoding.cortex import cortex_spec, simulate

    benchmark(simulate, cortex_spec(frame=12, train_trials=40), 0)


def test_simulate_the_issues_twenty_sessions_of_two_hundred_neurons(benchmark):
    from methods.neural_encoding.cortex import cortex_spec, simulate

    benchmark.pedantic(simulate, args=(cortex_spec(sessions=20, neurons=200), 0), rounds=1, iterations=1)


def test_fifty_training_steps_of_the_masked_transformer(benchmark, instance, one_thread):
    """Width 32, depth 2, batches of 16 trials, the seven masks drawn in turn."""
    from harness.context import RunContext
    from methods.neural_encoding.omnimouse import OmniMouse

    method = OmniMouse(steps=50)
    benchmark(method.trained, instance.inputs.train, RunContext(seed=0, device="cpu", threads=1))
