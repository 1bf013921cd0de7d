"""Record files and `harness ingest`: rebuild a store from a run folder, idempotently."""
from __future__ import annotations

import json

from harness.record_files import ingest, write_record_file
from harness.run_folders import record_file_name
from harness.store import Store
from tests.harness.records import a_record


def _run(cli, write_suite, store):
    assert cli("run", str(write_suite()), "--store", str(store))[0] == 0
    return Store(store).artifacts_dir / "toy"


def test_every_finished_run_leaves_a_record_file(cli, write_suite, store):
    folder = _run(cli, write_suite, store)
    files = sorted((folder / "records").glob("*.json"))
    stored = {r["run_key"]: r for r in Store(store).records()}
    assert len(files) == 4
    for path in files:
        record = json.loads(path.read_text())
        assert path.name == record_file_name(record["run_key"], record["run_id"])
        assert stored[record["run_key"]] == record


def test_ingest_rebuilds_a_lost_store_and_twice_stores_each_run_once(cli, write_suite, store, tmp_path):
    folder = _run(cli, write_suite, store)
    original = sorted(r["run_id"] for r in Store(store).records())
    rebuilt = tmp_path / "rebuilt.sqlite"
    code, out, _ = cli("ingest", str(folder), "--store", str(rebuilt), plugin=False)
    assert code == 0 and "4 runs ingested" in out
    code, out, _ = cli("ingest", str(folder), "--store", str(rebuilt), plugin=False)
    assert "0 runs ingested, 4 already stored" in out
    with Store(rebuilt) as db:
        assert sorted(r["run_id"] for r in db.records()) == original and db.integrity_ok()


def test_half_written_and_corrupt_files_are_skipped_and_reported(cli, write_suite, store, tmp_path):
    folder = _run(cli, write_suite, store) / "records"
    (folder / ".abc.def.json.tmp999").write_text('{"run_key": "ab')
    (folder / "garbage.x.json").write_text("{not json")
    good = json.loads(next(folder.glob("*.json")).read_text())
    (folder / "0000.1111.json").write_text(json.dumps({k: v for k, v in good.items() if k != "status"}))
    code, out, err = cli("ingest", str(folder), "--store", str(tmp_path / "s.sqlite"), plugin=False)
    assert code == 0
    assert "4 runs ingested" in out and "2 corrupt files skipped" in out and "1 partial writes ignored" in out
    assert "garbage.x.json" in err and "0000.1111.json: status: missing" in err


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
