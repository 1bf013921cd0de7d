"""A suite killed mid-run resumes: every (task, model, seed) is stored exactly once, each ok."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from harness.store import Store
from tests.harness.test_resume import _stored  # the store's run count while a coordinator writes it
from tests.lm_eval_tasks.conftest import PLUGIN


@pytest.mark.slow
def test_resume_after_sigkill_stores_each_task_model_seed_once(one_task_suite, tmp_path):
    suite = str(one_task_suite(task="tiny_sst2", limit=8, seeds="[0, 1, 2, 3, 4, 5]"))
    store = tmp_path / "results.sqlite"
    command = [sys.executable, "-m", "harness.cli", "run", suite, "--store", str(store), "--jobs", "2",
               "--plugin", PLUGIN]
    coordinator = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
    deadline = time.monotonic() + 120
    while _stored(store) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(coordinator.pid, signal.SIGKILL)  # the coordinator and its workers, mid-task
    coordinator.wait()
    before = _stored(store)
    assert 1 <= before < 6, "the kill should land mid-suite"

    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    with Store(store) as db:
        assert db.integrity_ok()
        records = list(db.records())
    assert sorted((r["dataset"], r["method"], r["seed"]) for r in records) == [("sst2", "llama", s) for s in range(6)]
    assert all(r["status"] == "ok" for r in records)
