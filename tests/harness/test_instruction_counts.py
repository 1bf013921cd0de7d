"""Instruction-count speed gates: `harness bench` counts one call of each benchmark under Valgrind and
`harness compare` gates two such files at 2 % by default; a slower function fails the gate, the same code
under a CPU-burning neighbour does not, and a benchmark missing from the candidate fails it."""
from __future__ import annotations

import multiprocessing
import shutil
import textwrap
from pathlib import Path

import pytest

from harness.comparison.classify import Status
from harness.comparison.count_gate import compare_counts
from harness.comparison.verdict import verdict
from harness.instruction_counts import (BenchmarkCounts, CountsFile, count_benchmarks, estimated_cycles,
                                        read_callgrind_totals)

EVENTS = {"Ir": 1000, "Dr": 300, "Dw": 200, "I1mr": 10, "D1mr": 20, "D1mw": 5, "ILmr": 1, "DLmr": 2, "DLmw": 1}
BUILD = {"python": "CPython 3.11.7", "machine": "x86_64", "valgrind": "valgrind-3.19.0", "numpy": "2.4.6"}


def test_estimated_cycles_weigh_l1_last_level_and_ram_hits_as_iai_callgrind():
    # 1500 accesses, 35 L1 misses of which 4 went to RAM: 1465 L1 hits + 5 x 31 LL hits + 35 x 4 RAM accesses
    assert estimated_cycles(EVENTS) == 1465 + 5 * 31 + 35 * 4


def test_callgrind_totals_are_read_from_its_summary_line(tmp_path):
    out = tmp_path / "callgrind.out"
    out.write_text("version: 1\nevents: Ir Dr Dw\nfl=(1) x.c\n1 2 3 4\nsummary: 143716864 39912621 21592707\n"
                   "totals: 143716862 39912621 21592707\n")
    assert read_callgrind_totals(out) == {"Ir": 143716864, "Dr": 39912621, "Dw": 21592707}


def _file(path: Path, cycles: dict[str, int], build: dict[str, str] = BUILD) -> str:
    benchmarks = [BenchmarkCounts(fullname=f"benchmarks/test_bench_x.py::{name}", instructions=value,
                                  estimated_cycles=value, events={"Ir": value}) for name, value in cycles.items()]
    path.write_text(CountsFile(build=build, cache_model={}, benchmarks=benchmarks).model_dump_json())
    return str(path)


def test_a_change_beyond_two_percent_is_judged_and_one_within_it_is_not(tmp_path):
    base = _file(tmp_path / "base.json", {"test_a": 1_000_000, "test_b": 1_000_000, "test_c": 1_000_000})
    cand = _file(tmp_path / "cand.json", {"test_a": 1_030_000, "test_b": 1_010_000, "test_c": 970_000})
    comparison = compare_counts(base, cand)
    status = {cell.method: cell.status for cell in comparison.cells}
    assert status == {"test_a": Status.REGRESSED, "test_b": Status.UNCHANGED, "test_c": Status.IMPROVED}
    assert verdict(comparison).exit_code == 1
    assert verdict(compare_counts(base, cand, max_ratio=1.05)).exit_code == 0


def test_a_benchmark_missing_from_the_candidate_fails_the_gate(tmp_path):
    base = _file(tmp_path / "base.json", {"test_a": 1_000_000, "test_b": 1_000_000})
    cand = _file(tmp_path / "cand.json", {"test_a": 1_000_000})
    outcome = verdict(compare_counts(base, cand))
    assert outcome.exit_code == 1 and "1 benchmark(s) of the base missing from the candidate" in outcome.reason


def test_counts_of_another_build_are_not_gated_and_the_difference_is_named(tmp_path):
    base = _file(tmp_path / "base.json", {"test_a": 1_000_000})
    cand = _file(tmp_path / "cand.json", {"test_a": 2_000_000}, {**BUILD, "numpy": "2.5.0"})
    (cell,) = compare_counts(base, cand).cells
    assert cell.status is Status.INCOMPARABLE and cell.reason == "not gated: another build: numpy '2.4.6' vs '2.5.0'"


def test_compare_refuses_a_counts_file_against_results(tmp_path, cli):
    base = _file(tmp_path / "base.json", {"test_a": 1})
    (tmp_path / "runs.csv").write_text("run_key\n")
    code, _, err = cli("compare", base, str(tmp_path / "runs.csv"), plugin=False)
    assert code == 3 and "names instruction-count JSON but" in err


BENCHMARK = """\
import os


def work(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def test_work(benchmark):
    assert benchmark(work, int(os.environ["BENCH_WORK"])) >= 0
"""


def _burn(seconds: float) -> None:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (apt-get install valgrind)")
def test_the_gate_fires_on_a_three_percent_slower_function_and_not_under_a_cpu_burning_neighbour(
        tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_bench_work.py").write_text(textwrap.dedent(BENCHMARK))

    def bench(work: int, name: str) -> str:
        monkeypatch.setenv("BENCH_WORK", str(work))
        out = tmp_path / f"{name}.json"
        out.write_text(count_benchmarks(["test_bench_work.py"], project, report=False).model_dump_json())
        return str(out)

    base = bench(20_000, "base")
    slower = bench(20_600, "slower")  # 3 % more iterations of the same loop
    neighbours = [multiprocessing.Process(target=_burn, args=(120,)) for _ in range(2)]  # both cores busy
    for neighbour in neighbours:
        neighbour.start()
    try:
        loaded = bench(20_000, "loaded")
    finally:
        for neighbour in neighbours:
            neighbour.kill()
    fired = compare_counts(base, slower)
    assert [cell.status for cell in fired.cells] == [Status.REGRESSED] and verdict(fired).exit_code == 1
    assert 1.025 < fired.cells[0].cand.mean / fired.cells[0].base.mean < 1.035
    held = compare_counts(base, loaded)
    assert [cell.status for cell in held.cells] == [Status.UNCHANGED] and verdict(held).exit_code == 0
    assert abs(held.cells[0].cand.mean / held.cells[0].base.mean - 1) < 1e-3
