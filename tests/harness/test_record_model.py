"""The run record as a typed model: its JSON Schema, the version-1 files it must keep reading, and the
worker's promise that whatever a run produces ends as a record."""
from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from harness.record import RECORD_SCHEMA_VERSION, STATUSES, RunRecord, record_json_schema
from harness.record_files import ingest, write_record_file
from harness.registry import load_plugin_file, tasks
from harness.run_folders import ExecutionFiles
from harness.runner import plan_suite
from harness.store import Store
from harness.worker import execute
from tests.conftest import TOY_PLUGIN
from tests.harness.records import V1_FILES, a_record, record_json


def test_record_json_schema_names_every_field_a_v1_record_has_and_no_other():
    schema = record_json_schema()
    written = set().union(*(json.loads(path.read_text()) for path in V1_FILES))
    added_since = {"curves"}  # optional, absent from a record without curves, so those files are unchanged
    assert set(schema["properties"]) == written | added_since and schema["additionalProperties"] is False
    assert set(schema["required"]) == written - {"error", "metrics", "measurements", "device", "environment",
                                                 "predictions", "log", "rescored_from"}
    assert schema["properties"]["seed"]["minimum"] == 0 and schema["properties"]["seed"]["exclusiveMaximum"] == 2**63
    assert schema["properties"]["status"]["enum"] == list(STATUSES)
    assert schema["properties"]["record_version"]["const"] == RECORD_SCHEMA_VERSION


def test_every_v1_record_file_satisfies_the_json_schema():
    import jsonschema  # the dev extra's

    validator = jsonschema.Draft202012Validator(record_json_schema())
    for path in V1_FILES:
        assert list(validator.iter_errors(json.loads(path.read_text()))) == [], path.name
    assert list(validator.iter_errors(record_json(seed=2**63, comment="hand-edited")))


def test_v1_record_files_written_before_the_model_are_ingested_and_stored_byte_for_byte(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    for path in V1_FILES:
        (folder / path.name).write_bytes(path.read_bytes())
    with Store(tmp_path / "s.sqlite") as store:
        report = ingest(folder, store)
        stored = {record["run_id"]: record for record in store.records()}
        typed = {record.run_id: record for record in store.run_records()}
    assert len(report.added) == len(V1_FILES) and not report.corrupt
    for path in V1_FILES:
        written = json.loads(path.read_text())
        assert stored[written["run_id"]] == written
        assert typed[written["run_id"]].json_text() == path.read_text()
    assert {r.status for r in typed.values()} == {"ok", "failed", "timeout"}
    assert [r.rescored_from for r in typed.values() if r.rescored_from] == ["a71e4fefbecb"]


def test_a_written_record_file_reads_back_as_the_same_record(tmp_path):
    record = a_record(measurements={"rate": {"value": 2.0, "unit": "1/s", "higher_is_better": True}})
    path = write_record_file(record, tmp_path)
    assert path == ExecutionFiles(tmp_path, record.suite, record.run_key, record.run_id).record
    assert RunRecord.model_validate(json.loads(path.read_text())) == record


def test_a_changed_record_is_checked_like_a_new_one():
    record = a_record()
    assert record.changed(status="crashed").status == "crashed"
    with pytest.raises(ValidationError, match="seed"):
        record.changed(seed=-1)


def test_results_no_record_can_hold_fail_the_run_and_still_leave_its_record(tmp_path, monkeypatch, write_suite):
    """A task whose score is no number: the run is `failed` with the field named, not a crashed worker."""
    load_plugin_file(TOY_PLUGIN)
    spec = plan_suite(write_suite())[1][0]
    monkeypatch.setattr(tasks.get(spec.task), "score",
                        lambda self, instance, predictions, metrics: {"accuracy": "high"})
    record = execute(spec, tmp_path / "runs", {})
    assert record.status == "failed" and record.metrics == {}
    assert record.error == \
        'its results cannot be recorded: metrics.accuracy: input should be a valid number, not "high"'
    files = ExecutionFiles.of(tmp_path / "runs", spec)
    assert RunRecord.model_validate(json.loads(files.record.read_text())) == record
    assert record.log is None and not files.log.exists()  # the run wrote nothing to its log: none is kept
