"""Leases on runs: coordinators sharing a store never hold or execute one run at once."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import time

from harness.claims import Claimant, heartbeat, machine_id
from harness.store import Store
from tests.harness.records import a_record


def _peer(owner: str, pid: int | None = None) -> Claimant:
    return Claimant(owner, machine_id(), pid or 1)  # pid 1 always lives


def _finished_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


RUNS = [("k1", "r1"), ("k2", "r2"), ("k3", "r3")]
NOTHING_STORED = {key: None for key, _ in RUNS}


def test_a_run_claimed_by_a_live_peer_is_held_not_claimed(store):
    with Store(store) as db:
        first = db.claims(_peer("a")).claim(RUNS, NOTHING_STORED, limit=2)
        second = db.claims(_peer("b")).claim(RUNS, NOTHING_STORED, limit=3)
    assert first.claimed == ["k1", "k2"]
    assert second.claimed == ["k3"] and second.held == ["k1", "k2"]


def test_an_expired_lease_frees_the_run_for_a_peer(store):
    now = [1000.0]
    with Store(store) as db:
        db.claims(Claimant("a", "elsewhere", 1), lease_s=60, clock=lambda: now[0]).claim(RUNS, NOTHING_STORED, 1)
        peer = db.claims(_peer("b"), lease_s=60, clock=lambda: now[0])
        assert peer.claim(RUNS[:1], NOTHING_STORED, 1).held == ["k1"]
        now[0] += 61
        assert peer.claim(RUNS[:1], NOTHING_STORED, 1).claimed == ["k1"]


def test_renewing_keeps_a_lease_past_its_first_expiry(store):
    now = [1000.0]
    with Store(store) as db:
        owner = db.claims(Claimant("a", "elsewhere", 1), lease_s=60, clock=lambda: now[0])
        owner.claim(RUNS[:1], NOTHING_STORED, 1)
        now[0] += 50
        owner.renew()
        now[0] += 50
        assert db.claims(_peer("b"), clock=lambda: now[0]).claim(RUNS[:1], NOTHING_STORED, 1).held == ["k1"]


def test_a_dead_coordinator_on_this_machine_loses_its_runs_at_once(store):
    with Store(store) as db:
        db.claims(_peer("dead", _finished_pid())).claim(RUNS, NOTHING_STORED, 3)
        assert db.claims(_peer("b")).claim(RUNS, NOTHING_STORED, 3).claimed == ["k1", "k2", "k3"]


def test_a_run_a_peer_stored_since_planning_is_done_not_claimed(store):
    with Store(store) as db:
        db.put(a_record(run_key="k2", run_id="theirs"))
        result = db.claims(_peer("b")).claim(RUNS, NOTHING_STORED, 3)
    assert result.done == ["k2"] and result.claimed == ["k1", "k3"]


def test_released_runs_can_be_claimed_by_a_peer(store):
    with Store(store) as db:
        owner = db.claims(_peer("a"))
        owner.claim(RUNS, NOTHING_STORED, 3)
        owner.release(["k1"])
        assert db.claims(_peer("b")).claim(RUNS, NOTHING_STORED, 3).claimed == ["k1"]
        owner.release()
        assert db.claims(_peer("c")).claim(RUNS, NOTHING_STORED, 3).held == ["k1"]  # still b's
        assert db.claims(_peer("c")).claim(RUNS, NOTHING_STORED, 3).claimed == ["k2", "k3"]


def test_the_heartbeat_renews_leases_while_the_coordinator_waits(store):
    claimant = Claimant("a", "elsewhere", 1)
    with Store(store) as db:
        db.claims(claimant, lease_s=0.2).claim(RUNS[:1], NOTHING_STORED, 1)
    expiry = "SELECT expires_at FROM claims"
    with sqlite3.connect(store) as db:
        before = db.execute(expiry).fetchone()[0]
        with heartbeat(store, claimant, lease_s=0.2):
            time.sleep(0.3)
        assert db.execute(expiry).fetchone()[0] > before
