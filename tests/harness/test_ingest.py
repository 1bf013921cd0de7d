"""Record files and `harness ingest`: runs travel to the store as files, each removed once stored."""
from __future__ import annotations

import json

from harness.record_files import ingest, write_record_file
from harness.run_folders import record_file_name
from harness.store import Store
from tests.harness.records import a_record


def _run(cli, write_suite, store):
    assert cli("run", str(write_suite()), "--store", str(store))[0] == 0
    return Store(store).artifacts_dir / "toy"


def _record_files(folder, count=4):
    """Record files as workers leave them when no coordinator stores them (a killed one, a cluster's)."""
    records = [a_record(run_key=f"key{i}", run_id=f"id{i}", seed=i) for i in range(count)]
    return [write_record_file(record, folder) for record in records], records


def test_a_stored_run_keeps_its_log_and_predictions_but_not_its_record_file(cli, write_suite, store):
    folder = _run(cli, write_suite, store)
    stored = list(Store(store).records())
    assert len(stored) == 4 and not list((folder / "records").glob("*.json*"))
    for record in stored:  # the toy method prints a line, so its log is kept
        assert (store.parent / record["log"]).is_file() and (store.parent / record["predictions"]).is_file()


def test_ingest_stores_each_record_file_once_and_removes_it(cli, tmp_path):
    files, records = _record_files(tmp_path / "runs")
    assert files[0].name == record_file_name("key0", "id0")
    code, out, _ = cli("ingest", str(tmp_path / "runs"), "--store", str(tmp_path / "s.sqlite"), plugin=False)
    assert code == 0 and "4 runs ingested" in out and not any(path.exists() for path in files)
    write_record_file(records[0], tmp_path / "runs")  # a copy of a stored run, e.g. fetched again from a cluster
    code, out, _ = cli("ingest", str(tmp_path / "runs"), "--store", str(tmp_path / "s.sqlite"), plugin=False)
    assert "0 runs ingested, 1 already stored" in out and not files[0].exists()
    with Store(tmp_path / "s.sqlite") as db:
        assert [r["run_id"] for r in db.records()] == [r.run_id for r in records] and db.integrity_ok()
        assert next(db.records()) == records[0].as_json()


def test_a_run_whose_coordinator_was_killed_is_stored_by_the_next_run(cli, write_suite, store):
    suite = write_suite()
    assert cli("run", str(suite), "--store", str(store))[0] == 0
    with Store(store) as db:
        killed = next(db.run_records())
        db._db.execute("DELETE FROM runs WHERE run_key = ?", (killed.run_key,))  # as if never stored
        db._db.commit()
    write_record_file(killed, Store(store).artifacts_dir)  # what its worker had written
    code, _, err = cli("run", str(suite), "--store", str(store))
    assert code == 0 and "1 runs ingested" in err
    with Store(store) as db:
        assert killed.run_id in {r["run_id"] for r in db.records()} and db.count() == 4


def test_half_written_and_corrupt_files_are_skipped_and_reported(cli, tmp_path):
    folder = tmp_path / "runs" / "toy" / "records"
    files, _ = _record_files(tmp_path / "runs")
    (folder / ".abc.def.json.tmp999").write_text('{"run_key": "ab')
    (folder / "garbage.x.json").write_text("{not json")
    good = json.loads(files[0].read_text())
    (folder / "0000.1111.json").write_text(json.dumps({k: v for k, v in good.items() if k != "status"}))
    code, out, err = cli("ingest", str(folder), "--store", str(tmp_path / "s.sqlite"), plugin=False)
    assert code == 0
    assert "4 runs ingested" in out and "2 corrupt files skipped" in out and "1 partial writes ignored" in out
    assert "garbage.x.json" in err and "0000.1111.json: status: missing" in err
    assert (folder / "garbage.x.json").exists()  # a file it could not store is left for the user


def test_the_newest_record_of_a_run_wins(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    write_record_file(a_record(run_key="k1", run_id="old", status="failed", finished_at="2026-01-01T00:00:00"),
                      tmp_path / "r")
    write_record_file(a_record(run_key="k1", run_id="new", finished_at="2026-02-01T00:00:00"), tmp_path / "r")
    report = ingest(tmp_path / "r", store)
    assert [r["run_id"] for r in store.records()] == ["new"] and report.duplicates == 1


def test_ingest_of_a_missing_folder_is_a_user_error(cli, tmp_path):
    code, _, err = cli("ingest", str(tmp_path / "nope"), "--store", str(tmp_path / "s.sqlite"), plugin=False)
    assert code == 3 and "is not a folder" in err
