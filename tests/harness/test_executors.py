"""Executor details: GPU pinning per worker and a clean stop on Ctrl-C."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from harness.executors.local import spawn_worker
from harness.store import Store
from tests.conftest import TOY_PLUGIN, interruptible
from tests.harness.test_resume import SLOW_SUITE, _stored

DEVICES_SUITE = """\
schema_version: 1
suite: devices
task: toy.sign
defaults: {seeds: [0, 1, 2, 3, 4, 5, 6, 7]}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods: {probe: {impl: visible_devices}}
"""


def test_each_local_worker_is_pinned_to_one_gpu(cli, write_suite, store, monkeypatch):
    import harness.executors.local as local

    monkeypatch.setattr(local, "gpu_names", lambda: ("GPU A", "GPU B"))
    assert cli("run", str(write_suite(DEVICES_SUITE)), "--store", str(store), "--jobs", "2")[0] == 0
    pinned = {r["measurements"]["cuda_visible_devices"]["value"] for r in Store(store).records()}
    assert pinned == {0.0, 1.0}


def test_without_gpus_workers_are_not_pinned(cli, write_suite, store, monkeypatch):
    import harness.executors.local as local

    monkeypatch.setattr(local, "gpu_names", lambda: ())
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    cli("run", str(write_suite(DEVICES_SUITE)), "--store", str(store))
    assert {r["measurements"]["cuda_visible_devices"]["value"] for r in Store(store).records()} == {-1.0}


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_keeps_finished_runs(write_suite, store):
    suite = str(write_suite(SLOW_SUITE))
    command = [sys.executable, "-m", "harness.cli", "run", suite, "--store", str(store), "--plugin", TOY_PLUGIN]
    coordinator = interruptible(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
    deadline = time.monotonic() + 60
    while _stored(store) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    coordinator.send_signal(signal.SIGINT)
    out, err = coordinator.communicate(timeout=30)
    assert coordinator.returncode == 130
    assert "run the same command again to resume" in err
    assert "Traceback" not in err
    with Store(store) as db:
        assert db.integrity_ok() and 2 <= db.count() < 12


def test_a_run_handed_to_a_worker_that_just_died_is_kept_for_the_next_worker():
    worker = spawn_worker()
    worker.process.kill()
    worker.process.join(timeout=10)
    worker.hold("a run")  # used to raise BrokenPipeError and end the suite
    assert list(worker.held) == ["a run"] and not worker.process.is_alive()
    worker.kill()
