"""The chaos loop: coordinators SIGKILLed at random moments, and two started at once on one store.

Every execution appends its seed to a ledger file (`tests/plugins/counted_method.py`), so the tests
count what really ran, not what the store says. The figures are printed (`pytest -s` shows them).
"""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.store import Store
from tests.conftest import TOY_PLUGIN

COUNTED_PLUGIN = str(Path(TOY_PLUGIN).with_name("counted_method.py"))
KILLS = 50
PLANNED = re.compile(r"\d+ runs planned")


def _suite(folder: Path, seeds: int) -> Path:
    path = folder / "chaos.yaml"
    path.write_text(f"""\
schema_version: 1
suite: chaos
task: toy.sign
defaults: {{seeds: {list(range(seeds))}, timeout: 30s}}
datasets: {{easy: {{loader: numbers, args: {{n: 20}}}}}}
metrics: [accuracy]
methods:
  counted: {{impl: counted, params: {{ledger: {folder / 'ledger.txt'}, seconds: 0.02}}}}
""")
    return path


def _coordinator(suite: Path, store: Path, output: Path, *options: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "harness.cli", "run", str(suite), "--store", str(store), *options,
               "--plugin", TOY_PLUGIN, "--plugin", COUNTED_PLUGIN]
    with output.open("w") as sink:
        return subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)


def _wait_for_plan(process: subprocess.Popen, output: Path, timeout: float = 30) -> bool:
    """True once the coordinator printed its plan; False if it ended first (nothing left to run)."""
    deadline = time.monotonic() + timeout
    while not PLANNED.search(output.read_text()):
        if process.poll() is not None:
            return False
        assert time.monotonic() < deadline, f"no plan after {timeout} s: {output.read_text()}"
        time.sleep(0.01)
    return True


def _executions(folder: Path) -> Counter:
    ledger = folder / "ledger.txt"
    return Counter(ledger.read_text().split()) if ledger.exists() else Counter()


def _stored_seeds(store: Path) -> list[int]:
    with Store(store, read_only=True) as db:
        assert db.integrity_ok()
        return sorted(r["seed"] for r in db.records())


def _no_tracebacks(outputs: list[Path]) -> None:
    for output in outputs:
        assert "Traceback" not in output.read_text(), output.read_text()


@pytest.mark.slow
def test_coordinators_killed_at_random_times_store_every_run_exactly_once(tmp_path):
    seeds = 300
    suite, store = _suite(tmp_path, seeds), tmp_path / "results.sqlite"
    rng = random.Random(20260)
    outputs, kills = [], 0
    while kills < KILLS:
        output = tmp_path / f"coordinator-{len(outputs)}.out"
        outputs.append(output)
        # Mostly inline (fast to start); every tenth has a worker pool, whose workers must die with it.
        options = ("--executor", "local", "--jobs", "2") if len(outputs) % 10 == 0 else ("--executor", "inline")
        process = _coordinator(suite, store, output, *options)
        planned = _wait_for_plan(process, output)
        if planned:
            time.sleep(rng.uniform(0.0, 0.3))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            kills += 1
        process.wait(timeout=30)
        assert planned, "the suite finished before the kills were done: give it more seeds"
    stored_before_completion = len(_stored_seeds(store))

    final = tmp_path / "final.out"
    process = _coordinator(suite, store, final, "--jobs", "2")
    assert process.wait(timeout=120) == 0, final.read_text()
    executions = _executions(tmp_path)
    print(f"\nchaos: {kills} SIGKILLs, {stored_before_completion} of {seeds} runs stored before the last rerun, "
          f"{sum(executions.values())} executions, {sum(n - 1 for n in executions.values())} re-executions "
          "of runs cut short by a kill")
    assert _stored_seeds(store) == list(range(seeds))
    assert set(executions) == {str(seed) for seed in range(seeds)}
    _no_tracebacks([*outputs, final])


@pytest.mark.slow
def test_two_coordinators_started_at_once_execute_every_run_once(tmp_path):
    seeds = 30
    suite, store = _suite(tmp_path, seeds), tmp_path / "results.sqlite"
    outputs = [tmp_path / "a.out", tmp_path / "b.out"]
    processes = [_coordinator(suite, store, output, "--jobs", "2") for output in outputs]
    assert [p.wait(timeout=120) for p in processes] == [0, 0], [o.read_text() for o in outputs]
    executions = _executions(tmp_path)
    executed = [int(re.search(r"(\d+) runs executed", o.read_text()).group(1)) for o in outputs]
    print(f"\ntwo coordinators: {executed[0]} + {executed[1]} runs executed of {seeds}, "
          f"{sum(n - 1 for n in executions.values())} executed twice")
    assert _stored_seeds(store) == list(range(seeds))
    assert executions == Counter({str(seed): 1 for seed in range(seeds)})
    assert sum(executed) == seeds
    _no_tracebacks(outputs)
