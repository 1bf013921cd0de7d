"""A local run's whole process tree ends with it and counts against it: its subprocesses and double-forked
daemons end with the run (finished, timed out) and with a killed coordinator, a subprocess's brief memory
spike counts against `resources.mem`, and its log never holds more than its cap on disk."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from harness.run_log import LOG_KEEP_BYTES
from harness.store import Store
from tests.harness.test_isolation import _alive, _records, _toy_suite
from tests.harness.test_resume import _harness, _stored

PLUGIN = str(Path(__file__).resolve().parents[1] / "plugins" / "process_tree_methods.py")


def _pids(pid_file: Path, within_s: float = 60) -> list[int]:
    deadline = time.monotonic() + within_s
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return [int(line) for line in pid_file.read_text().split()]


def _survivors(pids: list[int], within_s: float = 5) -> list[int]:
    """The pids still alive after up to `within_s`; killed here so that a failing test leaves nothing behind."""
    deadline = time.monotonic() + within_s
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = _alive(pids)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    return survivors


def _spawning_suite(pid_file: Path, timeout: str, hang: bool) -> str:
    return _toy_suite("trees", f"timeout: {timeout}",
                      f"spawns: {{impl: trees.spawn, params: {{pid_file: '{pid_file}', hang: {str(hang).lower()}}}}}")


def test_a_finished_run_takes_its_subprocess_and_its_double_forked_daemon_with_it(write_suite, store, tmp_path):
    """Both are gone once the run is stored, while the suite goes on with a run that sleeps."""
    pid_file = tmp_path / "pids"
    suite = _toy_suite("trees", "timeout: 60s", f"spawns: {{impl: trees.spawn, params: {{pid_file: '{pid_file}'}}}}, "
                                                "later: {impl: slow, params: {seconds: 60}}")
    coordinator = subprocess.Popen([*_harness("run", str(write_suite(suite)), "--store", str(store)), "--plugin",
                                    PLUGIN, "--jobs", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while _stored(store) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = _pids(pid_file)
    survivors = _survivors(pids)
    assert coordinator.poll() is None, "the suite should still be running its second run"
    coordinator.terminate()
    coordinator.wait(timeout=60)
    assert len(pids) == 2 and survivors == []


def test_a_timed_out_run_takes_its_double_forked_daemon_with_it(cli, write_suite, store, tmp_path):
    pid_file = tmp_path / "pids"
    assert cli("run", str(write_suite(_spawning_suite(pid_file, "2s", hang=True))), "--store", str(store),
               "--plugin", PLUGIN)[0] == 2
    assert [r["status"] for r in _records(store).values()] == ["timeout"]
    assert _survivors(_pids(pid_file)) == []


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_coordinator_takes_its_runs_subprocesses_with_it(how, write_suite, store, tmp_path):
    pid_file = tmp_path / "pids"
    suite = str(write_suite(_spawning_suite(pid_file, "10m", hang=True)))
    coordinator = subprocess.Popen([*_harness("run", suite, "--store", str(store)), "--plugin", PLUGIN],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
    pids = _pids(pid_file)
    os.kill(coordinator.pid, how)
    survivors = _survivors(pids)
    _, err = coordinator.communicate(timeout=30)  # its stderr closes once every process holding it is gone
    assert survivors == []
    assert "Traceback" not in err


SPIKE_SUITE = _toy_suite("spikes", "timeout: 60s, resources: {mem: 300M}",
                         "spikes: {impl: trees.spike, params: {mb: 400}}, small: {impl: trees.spike, params: {mb: 10}}"
                         ).replace("seeds: [0]", "seeds: [0, 1, 2]")


@pytest.mark.slow
def test_a_subprocess_spiking_above_the_memory_limit_between_polls_is_stored_as_oom(cli, write_suite, store,
                                                                                     monkeypatch):
    """The coordinator's poll is slowed so that every spike falls between two polls, as a spike shorter than the
    real 0.25 s does by chance; three seeds, so that a worker's earlier spike cannot hide a later one."""
    monkeypatch.setattr("harness.executors.local._POLL_S", 30.0)
    assert cli("run", str(write_suite(SPIKE_SUITE)), "--store", str(store), "--plugin", PLUGIN)[0] == 2
    with Store(store) as db:
        records = list(db.records())
    assert sorted((r["method"], r["status"]) for r in records) == [("small", "ok")] * 3 + [("spikes", "oom")] * 3
    message = (r"MemoryError: peak resident memory of \d+ MB \(\d+ MB in the run's process and \d+ MB in its largest "
               r"subprocess\) exceeded its resources.mem of 300M")
    assert all(re.fullmatch(message, r["error"]) for r in records if r["method"] == "spikes")


CHATTY_SUITE = _toy_suite("flood", "timeout: 60s", "chatty: {impl: chatty, params: {mb: 40}}")


def test_a_run_printing_far_more_than_the_cap_never_has_more_than_the_cap_on_disk(cli, write_suite, store):
    logs = store.parent / f"{store.stem}-runs" / "flood" / "logs"
    largest = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal largest
        while not done.is_set():
            sizes = []
            for path in logs.glob("*") if logs.is_dir() else []:
                try:
                    sizes.append(path.stat().st_size)
                except FileNotFoundError:
                    pass  # a part of the log dropped between the listing and the look
            largest = max(largest, sum(sizes))
            time.sleep(0.002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        assert cli("run", str(write_suite(CHATTY_SUITE)), "--store", str(store))[0] == 0
    finally:
        done.set()
        sampler.join()
    (record,) = _records(store).values()
    text = (store.parent / record["log"]).read_text()
    assert "line 00000000 " in text and f"line {40 * 1024 - 1:08d} " in text
    assert "bytes of this log were dropped" in text
    assert 2 * LOG_KEEP_BYTES < largest <= 2.25 * LOG_KEEP_BYTES, f"{largest / 2**20:.1f} MiB on disk at once"


def test_a_run_whose_worker_segfaults_keeps_its_last_words_and_its_stack_in_its_log(cli, write_suite, store):
    """What the dying worker wrote is still in its output pipe, which the coordinator empties into the log."""
    suite = write_suite(_toy_suite("crash", "timeout: 60s", "crash: {impl: trees.last_words}"))
    assert cli("run", str(suite), "--store", str(store), "--plugin", PLUGIN)[0] == 2
    (record,) = _records(store).values()
    assert record["status"] == "crashed"
    log = (store.parent / record["log"]).read_text()
    assert "last words before the crash\nFatal Python error: Segmentation fault" in log
