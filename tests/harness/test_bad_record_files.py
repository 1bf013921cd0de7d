"""A record file the store cannot hold is skipped with a warning naming it; it never blocks a suite (issue 23)."""
from __future__ import annotations

import json

import pytest

from harness.record_files import ingest
from harness.run_folders import record_file_name, records_folder
from harness.store import Store
from tests.harness.records import record_json

GOOD = record_json(run_key="k1", run_id="r1", suite="toy")


def _plant(folder, record: dict) -> str:
    """Write `record` under the name its run key and id give, as a worker would."""
    folder.mkdir(parents=True, exist_ok=True)
    name = record_file_name(record["run_key"], record["run_id"])
    (folder / name).write_text(json.dumps(record))
    return name


@pytest.mark.parametrize(("change", "problem"), [
    ({"seed": 2**63}, "seed: input should be less than 9223372036854775808, not 9223372036854775808"),
    ({"seed": -1}, "seed: input should be greater than or equal to 0, not -1"),
    ({"seed": True}, "seed: input should be a valid integer, not true"),
    ({"seed": "0"}, 'seed: input should be a valid integer, not "0"'),
    ({"finished_at": 17}, "finished_at: input should be a valid string, not 17"),
    ({"method": None}, "method: input should be a valid string, not null"),
    ({"record_version": "1"}, 'record_version: input should be 1, not "1"'),
    ({"record_version": 2},
     "record_version: record version 2 is newer than this harness reads (1); upgrade the harness"),
    ({"status": "done"}, "status: input should be 'ok', 'failed', 'timeout', 'oom' or 'crashed', not \"done\""),
    ({"measurements": {"wall_s": {"value": "fast"}}},
     'measurements.wall_s.value: input should be a valid number, not "fast"; measurements.wall_s.unit: missing'),
    ({"resources": {"mem": "lots"}}, "resources.mem: 'lots' is not a memory size; write e.g. '512M', '8G' or '1T'"),
    ({"comment": "hand-edited"}, "comment: not a field of a version-1 record"),
])
def test_record_the_store_cannot_hold_is_skipped_and_named(tmp_path, change, problem):
    folder = tmp_path / "records"
    _plant(folder, GOOD | {"run_key": "k0"})
    bad = _plant(folder, GOOD | change)
    with Store(tmp_path / "s.sqlite") as store:
        report = ingest(folder, store)
        assert report.added == ["k0"] and [r["run_key"] for r in store.records()] == ["k0"]
    assert report.warnings() == [f"skipped corrupt record file {folder / bad}: {problem}"]


def test_json_nested_too_deep_to_parse_is_skipped(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "k1.r1.json").write_text("[" * 100_000 + "]" * 100_000)
    with Store(tmp_path / "s.sqlite") as store:
        report = ingest(folder, store)
    assert [path.name for path, _ in report.corrupt] == ["k1.r1.json"]


def test_leftover_record_with_a_64_bit_overflowing_seed_does_not_block_the_next_run(cli, write_suite, store):
    """Before seeds were bounded, a seed of 2^63 crashed the coordinator in `Store.put` and its record file
    crashed every later run and ingest of the suite."""
    folder = records_folder(Store(store).artifacts_dir.absolute(), "toy")
    bad = _plant(folder, GOOD | {"seed": 2**63})
    code, out, err = cli("run", str(write_suite()), "--store", str(store))
    assert code == 0 and "4 runs executed (0 failed)" in out, err
    assert f"skipped corrupt record file {folder / bad}: seed: input should be less than 9223372036854775808" in err
    code, _, err = cli("ingest", str(folder), "--store", str(store), plugin=False)
    assert code == 0 and bad in err and "Traceback" not in err
