"""Coordinators sharing one store: each execution has its own files, and a run a peer holds is
waited for, taken over when the peer's lease lapses, and counted (not run again) when the peer stores it."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pandas as pd

from harness.claims import Claimant
from harness.record import RunRecord, utc_now
from harness.runner import RunOptions, plan_suite, run_suite
from harness.store import Store
from tests.conftest import TOY_PLUGIN


def _options(store: Path) -> RunOptions:
    return RunOptions(store=store, executor="inline", plugins=(TOY_PLUGIN,), live_progress=False)


def test_each_execution_of_a_run_has_its_own_log_and_predictions(cli, write_suite, store):
    suite = str(write_suite())
    assert cli("run", str(suite), "--store", str(store))[0] == 0  # in workers: the toy's print reaches its log
    first = {r["run_key"]: r for r in Store(store, read_only=True).records()}
    assert cli("run", str(suite), "--store", str(store), "--force")[0] == 0
    with Store(store, read_only=True) as db:
        second = {r["run_key"]: r for r in db.records()}
    for key, record in second.items():
        assert record["run_id"] in record["log"] and record["run_id"] in record["predictions"]
        assert {record["log"], record["predictions"]}.isdisjoint({first[key]["log"], first[key]["predictions"]})
        assert (store.parent / first[key]["predictions"]).is_file()  # the first execution's files are untouched
        predictions = pd.read_parquet(store.parent / record["predictions"])
        assert (store.parent / record["log"]).is_file() and len(predictions) > 0


def _hold(store: Path, run_key: str, lease_s: float) -> None:
    """A live peer (on another machine, so only its lease can free its runs) claims `run_key`."""
    with Store(store) as db:
        peer = db.claims(Claimant("peer", "another machine", 1), lease_s=lease_s)
        peer.claim([(run_key, "theirs")], {run_key: None}, 1)


def test_a_run_held_by_a_peer_is_waited_for_then_taken_over_when_its_lease_lapses(write_suite, store, capsys):
    suite = write_suite()
    _, planned = plan_suite(suite)
    _hold(store, planned[0].run_key, lease_s=1.0)
    outcome = run_suite(suite, _options(store))
    assert outcome.executed == len(planned) and outcome.by_peers == 0
    assert "waiting for 1 runs that another coordinator" in capsys.readouterr().err
    with Store(store, read_only=True) as db:
        assert db.count() == len(planned)


def test_a_run_a_peer_stores_meanwhile_is_counted_not_run_again(write_suite, store):
    suite = write_suite()
    _, planned = plan_suite(suite)
    held = planned[0]
    _hold(store, held.run_key, lease_s=600)

    def peer_finishes() -> None:
        time.sleep(0.5)
        with Store(store) as db:
            theirs = RunRecord.of(held, status="failed", error="theirs failed", started_at=utc_now(),
                                  finished_at=utc_now())
            db.put(theirs.changed(run_id="theirs"))
            db.claims(Claimant("peer", "another machine", 1)).release()

    peer = threading.Thread(target=peer_finishes)
    peer.start()
    outcome = run_suite(suite, _options(store))
    peer.join()
    assert (outcome.executed, outcome.by_peers, outcome.by_peers_failed) == (len(planned) - 1, 1, 1)
    assert outcome.any_failed  # the peer's failure is this suite's failure too: exit 2
    with Store(store, read_only=True) as db:
        assert next(db.records([held.run_key]))["run_id"] == "theirs"
