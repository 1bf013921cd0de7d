"""A store's run folder is laid out as `harness.run_folders` says, and records name their files by it."""
from __future__ import annotations

import pandas as pd

from harness.run_folders import ExecutionFiles, records_folder, results_table, runs_folder, stored_file
from harness.store import Store


def test_a_run_leaves_its_log_and_predictions_where_run_folders_says(cli, write_suite, store):
    assert cli("run", str(write_suite()), "--store", str(store))[0] == 0
    runs = runs_folder(store)
    with Store(store, read_only=True) as db:
        assert db.artifacts_dir == runs
        records = list(db.run_records())
        for record in records:
            files = ExecutionFiles(runs, record.suite, record.run_key, record.run_id)
            assert files.record.parent == records_folder(runs, "toy")
            assert not files.record.exists()  # a record file is removed once the store holds its record
            assert stored_file(store, record.log) == files.log and files.log.is_file()
            assert stored_file(store, record.predictions) == files.predictions == db.predictions_path(record.run_id)
            assert len(pd.read_parquet(files.predictions)) > 0
    assert len(records) == 4 and results_table(runs, "toy").is_file()


def test_a_damaged_store_points_at_its_own_run_folder(cli, write_suite, store):
    assert cli("run", str(write_suite()), "--store", str(store))[0] == 0
    store.write_bytes(store.read_bytes()[:100] + b"\0" * 4096)
    code, _, err = cli("plan", str(write_suite()), "--store", str(store))
    assert code == 3 and f"harness ingest {runs_folder(store)} " in err
