"""The family's method parameters: one pydantic model per method with each parameter's type, range and default.

Torch-free, and free of the methods' own imports: `harness validate` and `harness plan` check every grid value
of a suite against these models (a bad one is exit 3 with the suite's line) without importing a method.
A method without parameters is registered with `params="harness:MethodParams"` and needs no model here.
"""
from __future__ import annotations

from pydantic import Field

from harness import MethodParams


class MyMethodParams(MethodParams):
    """MyMethod's parameters, and the version of its answer."""

    version = "1"  # bump when a change of code changes its answers: it enters the run key
    # The values that run it in seconds on the task's `tiny_instance` (tests/conformance), e.g. {"epochs": 5} for
    # a trained method; nearest-centroid scoring needs none.
    tiny = {}
    standardize: bool = Field(True, description="scale each feature by the training points' mean and deviation")
