"""Shared problems for the deferral tests: small generated instances and a run helper."""
from __future__ import annotations

import pytest

from harness import Instance
from methods.deferral.data import gaussian_mixture, load_bundled
from methods.deferral.task import DeferralAllocation

TASK = DeferralAllocation()


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
