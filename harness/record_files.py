"""Per-run record files: how finished runs travel from workers to the store.

A worker (local, Ray or Slurm) writes each finished run as an immutable JSON file in the
suite's run folder, by writing a temporary file and renaming it, so a reader never sees
half a record. The coordinator, which writes the store (workers never do), ingests them; so does
`harness ingest DIR`, which tops up a store. This is what makes a shared network filesystem safe:
SQLite is never written over NFS, only these files. A record file is a message, not an archive: once
the store holds its record it is removed (`consume_record_file`), so a finished run leaves its log and
predictions beside the store, not a second copy of its record (back a store up with `sqlite3 .backup`).
A file in the run folder that is not a plain file (a fifo, a device, a link) or is too large for a record
is skipped and named, never opened in a way that could block (`harness.regular_files`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from harness.record import RunRecord, describe_problems
from harness.regular_files import NotAPlainFile, read_plain_file
from harness.run_folders import ExecutionFiles, execution_of_record_file, record_file_name
from harness.store import Store

MAX_RECORD_FILE_BYTES = 64 * 2**20  # a record holds a run's figures, a few KB; this is far above any real one


def write_record_file(record: RunRecord, runs: Path) -> Path:
    """Write `record` into the run folder `runs`, atomically: a temporary file in the same folder, renamed.

    Not fsynced: a file torn by a power cut is skipped as corrupt by `ingest` (with a warning naming it)
    and its run, never stored, runs again; nothing stored depends on it.
    """
    final = ExecutionFiles(runs, record.suite, record.run_key, record.run_id).record
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{final.name}.tmp{os.getpid()}"
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(record.json_text())
    os.replace(tmp, final)
    return final


def consume_record_file(record: RunRecord, runs: Path) -> None:
    """Remove `record`'s file from the run folder `runs` once the store holds it (see the module's docstring)."""
    ExecutionFiles(runs, record.suite, record.run_key, record.run_id).record.unlink(missing_ok=True)


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)         # run keys stored
    duplicates: int = 0                                    # already stored (same run, or an older one)
    corrupt: list[tuple[Path, str]] = field(default_factory=list)
    partial: int = 0                                       # temporary files of writes cut short
    not_plain: list[tuple[Path, str]] = field(default_factory=list)  # fifos, devices, links, oversized files

    def summary(self) -> str:
        not_plain = f", {len(self.not_plain)} files that are not plain record files skipped" if self.not_plain else ""
        return (f"{len(self.added)} runs ingested, {self.duplicates} already stored, "
                f"{len(self.corrupt)} corrupt files skipped, {self.partial} partial writes ignored{not_plain}")

    def warnings(self) -> list[str]:
        """One line per skipped file, naming it and why, so the user can inspect or delete it."""
        return ([f"skipped corrupt record file {path}: {problem}" for path, problem in self.corrupt]
                + [f"skipped {path}: {problem}; a worker writes a record as a regular file, so this one is left "
                   "unread" for path, problem in self.not_plain])


def ingest(folder: Path, store: Store) -> IngestReport:
    """Store every record file under `folder` not stored yet, removing each file whose record the store
    then holds; idempotent, never raises on a bad file.

    For one run key, the record that finished last wins (a `--force` rerun replaces the old run); a record
    that lost to a newer stored one keeps its file.
    """
    report = IngestReport()
    if not folder.is_dir():
        return report
    stored = store.stored_runs()
    for path in sorted(folder.rglob("*.json*")):
        if path.name.startswith("."):
            report.partial += 1
            continue
        run_key, run_id = execution_of_record_file(path.name)
        if stored.get(run_key, ("", ""))[0] == run_id:
            report.duplicates += 1
            path.unlink(missing_ok=True)
            continue
        try:
            record = _read(path)
        except FileNotFoundError:
            continue  # another coordinator on this store stored it and removed it meanwhile
        except NotAPlainFile as exc:
            report.not_plain.append((path, str(exc)))
            continue
        except (OSError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
            report.corrupt.append((path, str(exc)))
            continue
        previous = stored.get(record.run_key)
        if previous is not None and previous[1] >= record.finished_at:
            report.duplicates += 1
            continue
        store.put(record)
        path.unlink(missing_ok=True)
        stored[record.run_key] = (record.run_id, record.finished_at)
        report.added.append(record.run_key)
    return report


def _read(path: Path) -> RunRecord:
    """The record a file holds, checked field by field (`RunRecord`); a `ValueError` naming each bad field."""
    try:
        text = read_plain_file(path, MAX_RECORD_FILE_BYTES).decode("utf-8")
        record = RunRecord.model_validate(json.loads(text))
    except ValidationError as exc:
        raise ValueError(describe_problems(exc)) from None
    if path.name != record_file_name(record.run_key, record.run_id):
        raise ValueError("file name does not match its run key and run id")
    try:  # a "\ud800" escape in the JSON gives text the store cannot hold, and would stop the ingest
        json.dumps(record.as_json(), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("it holds a lone surrogate (a \\ud800-style escape), which UTF-8 cannot encode") from None
    return record
