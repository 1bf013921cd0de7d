"""Killing the coordinator mid-suite loses nothing: a rerun stores every run exactly once."""
from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from harness.store import Store
from tests.conftest import TOY_PLUGIN

SLOW_SUITE = """\
schema_version: 1
suite: slow
task: toy.sign
defaults: {seeds: [0, 1, 2, 3, 4, 5]}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods:
  slow: {impl: slow, params: {seconds: [0.3, 0.4]}}
"""


def _harness(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", *args, "--plugin", TOY_PLUGIN]


def _stored(store) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store, timeout=30) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


@pytest.mark.slow
def test_resume_after_sigkill_stores_each_run_once(write_suite, store):
    suite = str(write_suite(SLOW_SUITE))
    coordinator = subprocess.Popen(_harness("run", suite, "--store", str(store), "--jobs", "2"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while _stored(store) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(coordinator.pid, signal.SIGKILL)
    coordinator.wait()
    before = _stored(store)
    assert 4 <= before < 12, "the kill should land mid-suite"

    rerun = subprocess.run(_harness("run", suite, "--store", str(store), "--jobs", "2"),
                           capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    executed = int(re.search(r"(\d+) runs executed", rerun.stdout).group(1))
    picked_up = re.search(r"(\d+) runs ingested", rerun.stderr)
    # Runs that finished after the kill left record files; the rerun stores them instead of re-running.
    assert executed + (int(picked_up.group(1)) if picked_up else 0) == 12 - before
    with Store(store) as db:
        assert db.integrity_ok()
        records = list(db.records())
    assert len(records) == 12
    assert len({(r["method"], r["seed"]) for r in records}) == 12
    assert all(r["status"] == "ok" for r in records)
