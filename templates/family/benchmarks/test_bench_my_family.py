"""The family's hot path, measured, never asserted: MyMethod scoring 100,000 test points in 16 dimensions.

Run: `python -m pytest benchmarks --benchmark-only`; `extra_info` says how big the measured problem was.
"""
from __future__ import annotations

from harness import RunContext
from methods.my_family.data import gaussian_blobs
from methods.my_family.my_method import MyMethod
from methods.my_family.task import PointScoring


def test_my_method_on_100k_points(benchmark):
    instance = PointScoring().instance(gaussian_blobs(num_points=200_000, dims=16), {}, seed=0)
    ctx = RunContext(seed=0, device="cpu", threads=1)
    benchmark(MyMethod().run, instance.inputs, ctx)
    benchmark.extra_info["test_points"] = instance.inputs.x_test.shape[0]
