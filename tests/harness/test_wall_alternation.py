"""`harness bench --base REF`: a base commit's and the working tree's benchmarks timed in turns within one job;
a benchmark 1.5 times slower is a regression, an unchanged one is not, and one the candidate lost fails."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.wall_alternation import AlternatedTiming, alternate

BENCHMARKS = """\
import time


def test_same(benchmark):
    benchmark.pedantic(time.sleep, args=(0.01,), rounds=3, iterations=1)


def test_slower(benchmark):
    benchmark.pedantic(time.sleep, args=({slower},), rounds=3, iterations=1)
{dropped}
"""
DROPPED = """

def test_dropped(benchmark):
    benchmark.pedantic(time.sleep, args=(0.01,), rounds=3, iterations=1)
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.slow  # fourteen pytest processes: about 25 s
def test_a_slower_benchmark_regresses_an_unchanged_one_does_not_and_a_lost_one_fails(tmp_path):
    pytest.importorskip("pytest_benchmark")
    bench = tmp_path / "test_bench.py"
    bench.write_text(BENCHMARKS.format(slower=0.01, dropped=DROPPED))
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "test_bench.py")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    bench.write_text(BENCHMARKS.format(slower=0.015, dropped=""))  # the candidate: uncommitted, in the tree
    timings = {t.fullname.split("::")[-1]: t for t in alternate("HEAD", ["test_bench.py"], tmp_path, rounds=7)}
    assert timings["test_slower"].verdict == "regressed" and 1.3 < timings["test_slower"].ratio < 1.7
    assert timings["test_same"].verdict == "unchanged"
    assert timings["test_dropped"].verdict == "missing"
    assert timings["test_slower"].line().startswith("regressed  ") and "Mann-Whitney p = 0.00029" in \
        timings["test_slower"].line()  # 7 rounds a side all apart: 1 / C(14, 7)


def test_seven_rounds_a_side_decide_only_when_the_sides_all_but_separate():
    base = (1.00, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06)
    assert AlternatedTiming("b", base, tuple(v * 1.2 for v in base)).verdict == "regressed"
    mixed = (1.20, 1.21, 1.22, 1.23, 1.24, 1.25, 1.00)  # one candidate round as fast as the base's best
    assert AlternatedTiming("b", base, mixed).verdict == "unchanged"
    assert AlternatedTiming("b", base, tuple(v * 1.05 for v in base)).verdict == "unchanged"  # under 10 %
    assert AlternatedTiming("b", base, tuple(v / 1.2 for v in base)).verdict == "improved"
