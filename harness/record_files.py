"""Per-run record files: how finished runs travel from workers to the store.

A worker (local, Ray or Slurm) writes each finished run as an immutable JSON file in the
suite's run folder, by writing a temporary file and renaming it, so a reader never sees
half a record. The coordinator, which writes the store (workers never do), ingests them; so does
`harness ingest DIR`, which rebuilds or tops up a store. This is what makes a shared
network filesystem safe: SQLite is never written over NFS, only these files.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.record import RECORD_SCHEMA_VERSION, STATUSES
from harness.store import Store

_TEXT_FIELDS = ("run_key", "run_id", "suite", "method", "dataset", "status", "finished_at")
_REQUIRED = (*_TEXT_FIELDS, "seed")
_SEED_LIMIT = 2**63  # the store's seed column is a 64-bit SQLite integer


def records_dir(artifacts: Path, suite: str) -> Path:
    return artifacts / suite / "records"


def record_file_name(record: dict[str, Any]) -> str:
    return f"{record['run_key']}.{record['run_id']}.json"


def write_record_file(record: dict[str, Any], folder: Path) -> Path:
    """Write atomically: a temporary file in the same folder, flushed to disk, then renamed."""
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / record_file_name(record)
    tmp = folder / f".{final.name}.tmp{os.getpid()}"
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(record, handle, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, final)
    return final


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)         # run keys stored
    duplicates: int = 0                                    # already stored (same run, or an older one)
    corrupt: list[tuple[Path, str]] = field(default_factory=list)
    partial: int = 0                                       # temporary files of writes cut short

    def summary(self) -> str:
        return (f"{len(self.added)} runs ingested, {self.duplicates} already stored, "
                f"{len(self.corrupt)} corrupt files skipped, {self.partial} partial writes ignored")

    def warnings(self) -> list[str]:
        """One line per skipped file, naming it, so the user can inspect or delete it."""
        return [f"skipped corrupt record file {path}: {problem}" for path, problem in self.corrupt]


def ingest(folder: Path, store: Store) -> IngestReport:
    """Store every record file under `folder` not stored yet; idempotent, never raises on a bad file.

    For one run key, the record that finished last wins (a `--force` rerun replaces the old run).
    """
    report = IngestReport()
    if not folder.is_dir():
        return report
    stored = store.stored_runs()
    for path in sorted(folder.rglob("*.json*")):
        if path.name.startswith("."):
            report.partial += 1
            continue
        run_key, _, rest = path.name.partition(".")
        run_id = rest.removesuffix(".json")
        if stored.get(run_key, ("", ""))[0] == run_id:
            report.duplicates += 1
            continue
        try:
            record = _read(path)
        except (OSError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
            report.corrupt.append((path, str(exc)))
            continue
        previous = stored.get(record["run_key"])
        if previous is not None and previous[1] >= record["finished_at"]:
            report.duplicates += 1
            continue
        store.put(record)
        stored[record["run_key"]] = (record["run_id"], record["finished_at"])
        report.added.append(record["run_key"])
    return report


def _read(path: Path) -> dict[str, Any]:
    """A record from a file, checked enough that storing it cannot fail."""
    record = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    wrong = [k for k in _TEXT_FIELDS if not isinstance(record[k], str)]
    if wrong:
        raise ValueError(f"field(s) {', '.join(wrong)} are not text")
    seed = record["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed {str(seed):.40} is not an integer in [0, 2^63)")
    version = record.get("record_version", 0)
    if not isinstance(version, int):
        raise ValueError(f"record version {str(version):.40} is not an integer")
    if version > RECORD_SCHEMA_VERSION:
        raise ValueError(f"record version {version} is newer than this harness reads")
    if record["status"] not in STATUSES:
        raise ValueError(f"unknown status '{record['status']}'")
    if path.name != record_file_name(record):
        raise ValueError("file name does not match its run key and run id")
    return record
