"""Shared problems for the deferral tests: small generated instances and a run helper."""
from __future__ import annotations

import pytest

from harness import Instance, RunContext
from methods.deferral.data import gaussian_mixture, load_bundled
from methods.deferral.task import DeferralAllocation

TASK = DeferralAllocation()


def context(seed: int = 0) -> RunContext:
    return RunContext(seed=seed, device="cpu", threads=1)


def scored(instance: Instance, method, metrics: dict) -> dict[str, float]:  # noqa: ANN001
    """Run `method` on `instance` and score its predictions table with `metrics` ({key: Metric})."""
    table = TASK.predictions(instance, method.run(instance.inputs, context()))
    return TASK.score(instance, table, metrics)


@pytest.fixture(scope="session")
def mixture_instance() -> Instance:
    problem = gaussian_mixture(num_samples=600, num_classes=4, dims=4, experts=3, generalist=0.8, seed=0)
    return TASK.instance(problem, {}, 0)


@pytest.fixture(scope="session")
def digits_instance() -> Instance:
    return TASK.instance(load_bundled("digits", generalist=0.85), {"model_components": 4}, 0)


@pytest.fixture(scope="session")
def diabetes_instance() -> Instance:
    return TASK.instance(load_bundled("diabetes", generalist=0.5), {}, 0)
