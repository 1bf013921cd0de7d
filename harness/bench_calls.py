"""A pytest plugin standing in for pytest-benchmark's `benchmark` fixture while `harness bench` counts
instructions: the benchmarked function is called exactly `HARNESS_BENCH_CALLS` times (default 1), no timing.

`harness bench` runs each benchmark twice under Valgrind, with 1 and with 3 calls; half the difference of the two
totals is what one call of the function costs, whatever pytest, imports and the test's own setup cost. Load it
in place of pytest-benchmark: `pytest -p no:benchmark -p harness.bench_calls`.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

CALLS_VARIABLE = "HARNESS_BENCH_CALLS"


class CountedBenchmark:
    """The part of pytest-benchmark's fixture the benchmarks use: `benchmark(fn, *args)`,
    `benchmark.pedantic(fn, args, kwargs, setup, rounds, iterations)` and `extra_info`."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.extra_info: dict[str, Any] = {}
        self.group: str | None = None

    def __call__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        result = None
        for _ in range(self.calls):
            result = function(*args, **kwargs)
        return result

    def pedantic(self, target: Callable[..., Any], args: tuple = (), kwargs: dict | None = None,
                 setup: Callable[[], Any] | None = None, rounds: int = 1, iterations: int = 1,
                 warmup_rounds: int = 0) -> Any:
        """Each call runs `setup` first, as pytest-benchmark does per round; rounds and iterations are ignored."""
        result = None
        for _ in range(self.calls):
            call_args, call_kwargs = args, kwargs or {}
            if setup is not None:
                prepared = setup()
                if prepared is not None:
                    call_args, call_kwargs = prepared
            result = target(*call_args, **call_kwargs)
        return result


@pytest.fixture
def benchmark() -> CountedBenchmark:
    return CountedBenchmark(int(os.environ.get(CALLS_VARIABLE, "1")))


class _PytestBenchmarkHooks:
    """pytest-benchmark's hooks a conftest may implement, declared so that pytest accepts them while it is off."""

    @pytest.hookspec
    def pytest_benchmark_update_machine_info(self, config: pytest.Config, machine_info: dict) -> None:
        """Declared only."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(_PytestBenchmarkHooks)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "benchmark: pytest-benchmark's options (ignored while counting)")
