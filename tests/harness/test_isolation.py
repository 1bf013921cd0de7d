"""The local executor's isolation: memory limits, capped logs, and no worker outliving its coordinator."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import psutil
import pytest

from harness.run_log import CappedLog, finish_log
from harness.store import Store
from tests.harness.test_resume import _harness, _stored


def _toy_suite(name: str, defaults: str, methods: str) -> str:
    """A one-seed suite of the toy family on its `numbers` dataset."""
    return (f"schema_version: 1\nsuite: {name}\ntask: toy.sign\ndefaults: {{seeds: [0], {defaults}}}\n"
            f"datasets: {{easy: {{loader: numbers}}}}\nmetrics: [accuracy]\nmethods: {{{methods}}}\n")


MEMORY_SUITE = _toy_suite("memory", "timeout: 60s, resources: {mem: 400M}",
                          "holds: {impl: hold_memory, params: {mb: 1500, seconds: 30}}, "
                          "fits: {impl: hold_memory, params: {mb: 20, seconds: 0}}")


def _records(store) -> dict[str, dict]:
    """The stored records by method."""
    with Store(store) as db:
        return {r["method"]: r for r in db.records()}


def test_a_run_holding_more_than_its_memory_limit_is_killed_as_oom_and_the_suite_goes_on(cli, write_suite, store):
    started = time.monotonic()
    code, _, _ = cli("run", str(write_suite(MEMORY_SUITE)), "--store", str(store))
    assert code == 2
    assert time.monotonic() - started < 20, "the run holding memory should be killed, not left to its timeout"
    records = _records(store)
    assert {m: r["status"] for m, r in records.items()} == {"holds": "oom", "fits": "ok"}
    assert "above its resources.mem of 400M; its worker was killed" in records["holds"]["error"]


def test_a_peak_above_the_memory_limit_fails_the_run_as_oom_in_every_executor(write_suite, store):
    """The inline executor never polls, so only the check of the run's measured peak can catch it; run in a
    fresh coordinator, whose own memory (inline, it is the run's process) is well under the limit."""
    suite = str(write_suite(MEMORY_SUITE.replace("seconds: 30", "seconds: 0")))
    coordinator = subprocess.run(_harness("run", suite, "--store", str(store), "--executor", "inline"),
                                 capture_output=True, text=True, timeout=120)
    assert coordinator.returncode == 2, coordinator.stderr
    records = _records(store)
    assert {m: r["status"] for m, r in records.items()} == {"holds": "oom", "fits": "ok"}
    assert "exceeded its resources.mem of 400M" in records["holds"]["error"]


CHATTY_SUITE = _toy_suite("chatty", "timeout: 60s", "chatty: {impl: chatty, params: {mb: 24}}")


def test_a_run_printing_megabytes_keeps_a_capped_log_with_its_first_and_last_lines(cli, write_suite, store):
    assert cli("run", str(write_suite(CHATTY_SUITE)), "--store", str(store))[0] == 0
    (record,) = _records(store).values()
    text = (store.parent / record["log"]).read_text()
    assert len(text) < 11 * 2**20
    assert "line 00000000 " in text and f"line {24 * 1024 - 1:08d} " in text
    assert "bytes of this log were dropped" in text


def _nonblocking_pipe() -> tuple[int, int]:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    return read_end, write_end


def _write_capped(log, data: bytes, chunk: int = 7, finish: bool = True) -> int:
    """`data` written to the capped log `log` (100 bytes of head, 100 of tail, parts of 25) through a pipe, as
    a run's output is, `chunk` bytes at a time, and the log finished unless its writer dies first (`finish`);
    returns the most bytes its files held on disk at once."""
    read_end, write_end = _nonblocking_pipe()
    capped, largest = CappedLog(log, head=100, tail=100, part=25), 0
    for start in range(0, len(data), chunk):
        os.write(write_end, data[start:start + chunk])
        capped.take(read_end)
        largest = max(largest, sum(p.stat().st_size for p in log.parent.rglob("*") if p.is_file()))
    if finish:
        capped.close()
    os.close(read_end)
    os.close(write_end)
    return largest


def test_a_capped_log_keeps_head_and_tail_and_counts_what_it_dropped(tmp_path):
    log = tmp_path / "run.log"
    largest = _write_capped(log, b"a" * 100 + b"b" * 1000 + b"c" * 100)
    head, marker, tail = log.read_bytes().split(b"\n", 2)
    assert head == b"a" * 100 and tail == b"c" * 100
    assert b"1000 bytes of this log were dropped" in marker
    assert largest <= 100 + 100 + 25, "the head, the tail and the part being written"
    assert list(tmp_path.iterdir()) == [log]


def test_a_capped_log_leaves_a_small_log_whole(tmp_path):
    log = tmp_path / "run.log"
    _write_capped(log, bytes(range(200)))
    assert log.read_bytes() == bytes(range(200))
    assert list(tmp_path.iterdir()) == [log]


def test_a_log_finished_after_its_worker_died_ends_with_its_last_words(tmp_path):
    log = tmp_path / "run.log"
    _write_capped(log, b"a" * 100 + b"b" * 1000, finish=False)  # the worker is killed: its log is left in parts
    finish_log(log, b"segfault", tail=100, part=25)
    text = log.read_bytes()
    assert text.startswith(b"a" * 100) and text.endswith(b"b" * 92 + b"segfault")
    assert b"908 bytes of this log were dropped" in text
    assert list(tmp_path.iterdir()) == [log]


SPAWNING_SUITE = _toy_suite("spawning", "timeout: 3s", "spawns: {impl: spawn_and_hang}")


def test_a_timed_out_run_takes_its_subprocesses_with_it(cli, write_suite, store):
    assert cli("run", str(write_suite(SPAWNING_SUITE)), "--store", str(store))[0] == 2
    (record,) = _records(store).values()
    assert record["status"] == "timeout"
    pid = int(re.search(r"subprocess pid (\d+)", (store.parent / record["log"]).read_text()).group(1))
    time.sleep(0.5)
    assert _alive([pid]) == []


HANGING_SUITE = _toy_suite("orphans", "timeout: 10m", "quick: {impl: threshold}, hang: {impl: hang}")


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.slow
def test_workers_die_quietly_with_a_sigkilled_coordinator(write_suite, store):
    """An idle worker and one mid-run, and multiprocessing's resource tracker, all go within seconds and
    nothing prints a traceback (the coordinator's stderr pipe only closes once every descendant is gone)."""
    suite = str(write_suite(HANGING_SUITE))
    coordinator = subprocess.Popen(_harness("run", suite, "--store", str(store), "--jobs", "2"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    logs = store.parent / f"{store.stem}-runs" / "orphans" / "logs"
    deadline = time.monotonic() + 60
    while (_stored(store) < 1 or len(list(logs.glob("*.log"))) < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # let the hanging run get into its method
    descendants = [p.pid for p in psutil.Process(coordinator.pid).children(recursive=True)]
    assert len(descendants) >= 3, "two workers and the resource tracker"
    os.kill(coordinator.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while _alive(descendants) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = _alive(descendants)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    _, err = coordinator.communicate(timeout=10)
    assert survivors == []
    assert "Traceback" not in err
