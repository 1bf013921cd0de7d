"""Planning, resuming and per-run overhead of the engine, on the toy family (no torch)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import TOY_PLUGIN

from harness.planner import plan
from harness.record import RunRecord, utc_now
from harness.registry import load_plugin_file
from harness.runner import RunOptions, plan_suite, run_suite
from harness.store import Store
from harness.suite import load_suite


def _suite(tmp_path: Path, datasets: int, grid: int, seeds: int, extra: str = "") -> Path:
    lines = ["schema_version: 1", "suite: bench", "task: toy.sign",
             f"defaults: {{seeds: {list(range(seeds))}, timeout: 60s}}", "datasets:"]
    lines += [f"  d{i}: {{loader: numbers, args: {{shift: {i / 10}}}}}" for i in range(datasets)]
    lines += ["metrics: [accuracy]", "methods:",
              f"  thr: {{impl: threshold, params: {{t: {[round(i / grid, 4) for i in range(grid)]}}}{extra}}}"]
    path = tmp_path / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_plan_10000_runs(benchmark, tmp_path):
    load_plugin_file(TOY_PLUGIN)
    suite, source = load_suite(_suite(tmp_path, datasets=10, grid=100, seeds=10))
    runs = benchmark(plan, suite, source, tmp_path)
    assert len(runs) == 10_000


def test_rerun_of_a_fully_stored_1000_run_suite(benchmark, tmp_path):
    load_plugin_file(TOY_PLUGIN)
    path = _suite(tmp_path, datasets=10, grid=10, seeds=10)
    store_path = tmp_path / "store.sqlite"
    _, planned = plan_suite(path, tmp_path)
    with Store(store_path) as store:
        for spec in planned:
            store.put(RunRecord.of(spec, status="ok", started_at=utc_now(), finished_at=utc_now(),
                                   metrics={"accuracy": 50.0}))
    options = RunOptions(store=store_path, data_root=tmp_path, plugins=(TOY_PLUGIN,), live_progress=False)
    outcome = benchmark(run_suite, path, options)
    assert outcome.executed == 0 and len(outcome.planned) == 1000


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_executor_overhead_per_run(benchmark, tmp_path, executor):
    """(T(260 runs) - T(20 runs)) / 240 with one worker: worker or cluster start cancels out."""
    if executor == "ray":
        pytest.importorskip("ray")
    load_plugin_file(TOY_PLUGIN)

    def wall(seeds: int, folder: str) -> float:
        (tmp_path / folder).mkdir()
        path = _suite(tmp_path / folder, datasets=1, grid=2, seeds=seeds)
        options = RunOptions(store=tmp_path / folder / "s.sqlite", plugins=(TOY_PLUGIN,), live_progress=False,
                             executor=executor)
        start = time.perf_counter()
        outcome = run_suite(path, options)
        assert outcome.failed == 0
        return time.perf_counter() - start

    def measure() -> float:
        stamp = str(time.perf_counter_ns())
        return (wall(130, "big" + stamp) - wall(10, "small" + stamp)) / 240

    per_run = benchmark.pedantic(measure, rounds=2, iterations=1)
    benchmark.extra_info["overhead_ms_per_run"] = round(per_run * 1000, 2)
    print(f"\n{executor} executor overhead: {per_run * 1000:.1f} ms per run")
