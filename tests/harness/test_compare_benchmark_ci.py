"""The CI's speed gate in `.ci/run`: instruction counts of the engine's in-process benchmarks against a committed
baseline; its own commands, with the baseline's benchmarks and build, gate as the README says."""
from __future__ import annotations

import shlex
from pathlib import Path

from harness.instruction_counts import CACHE_MODEL, load_counts

REPO = Path(__file__).resolve().parents[2]
BASELINE = "benchmarks/baseline/engine_counts.json"
COUNTED = {"test_plan_10000_runs", "test_rerun_of_a_fully_stored_1000_run_suite"}


def ci_command(start: str) -> list[str]:
    """The command of `.ci/run` beginning with `start`."""
    lines = (REPO / ".ci" / "run").read_text().replace("\\\n", " ").splitlines()
    (line,) = [line for line in lines if line.startswith(start)]
    return shlex.split(line)


def test_ci_counts_the_engine_benchmarks_and_gates_them_on_the_committed_baseline_at_its_default():
    bench = ci_command("harness bench")
    compare = ci_command("harness compare")
    assert bench[:3] == ["harness", "bench", "benchmarks/test_bench_engine.py"]
    assert compare[2:4] == [BASELINE, bench[bench.index("--out") + 1]]
    assert "--max-ratio" not in compare  # the counts' default, 2 %
    assert "--benchmark-json" not in (REPO / ".ci" / "run").read_text()  # no wall-time gate left


def test_committed_counts_baseline_covers_the_counted_benchmarks_under_the_cache_model():
    baseline = load_counts(str(REPO / BASELINE))
    assert {counts.fullname.partition("::")[2] for counts in baseline.benchmarks} == COUNTED
    assert baseline.cache_model == CACHE_MODEL and baseline.build["machine"] == "x86_64"
    assert all(counts.instructions > 10_000_000 for counts in baseline.benchmarks)  # one call's work, not noise
    assert (REPO / BASELINE).stat().st_size < 8_000
