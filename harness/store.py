"""The results store: one SQLite file (WAL), one row per run key, written by the coordinators.

Each row keeps the full run record as JSON (schema: `harness/record.py`) plus indexed
columns for lookups. The file is stamped with an application id and a schema version,
so a foreign or newer database is refused instead of being written into (`store_open`).
Coordinators sharing a store lease the runs they execute in its `claims` table (`claims.py`); its
`claim_registrations` table keeps each suite's paper claims as they stood before its first result (`claim_registry`).
Tables are created if absent, so a store written before a table existed gains it, empty, when next opened for writing.
"""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harness.claim_registry import SCHEMA as REGISTRATIONS_SCHEMA
from harness.claim_registry import ClaimRegistration, insert_registration, read_registration
from harness.claims import LEASE_S, Claimant, RunClaims
from harness.claims import SCHEMA as CLAIMS_SCHEMA
from harness.record import RECORD_SCHEMA_VERSION, RunRecord
from harness.record_json import REQUIRED_KEYS, RecordJson
from harness.run_folders import runs_folder, stored_file
from harness.store_open import APPLICATION_ID, open_store_file, quick_check_ok

if TYPE_CHECKING:
    from harness.run_spec import RunSpec

DEFAULT_STORE = Path(".harness") / "results.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_key     TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL UNIQUE,
    suite       TEXT NOT NULL,
    method      TEXT NOT NULL,
    dataset     TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    record      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_suite ON runs (suite, method, dataset);
""" + CLAIMS_SCHEMA + REGISTRATIONS_SCHEMA


class Store:
    """A harness results database; use as a context manager.

    `read_only` opens an existing store without writing to it (plan, report, export, compare);
    otherwise the store is created if absent and refused if damaged.
    """

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self._db = open_store_file(self.path, read_only, SCHEMA)
        self.unreadable: dict[str, str] = {}  # run_id -> why its stored record does not load (skipped)
        if not read_only:
            self._init_schema()

    @property
    def artifacts_dir(self) -> Path:
        """Where this store's run folders (logs, predictions, record files) live: `<name>-runs/` beside it.

        Its layout is `harness.run_folders`'s.
        """
        return runs_folder(self.path)

    def _init_schema(self) -> None:
        # One transaction: a coordinator opening the file meanwhile finds it empty or whole, never half-made.
        self._db.executescript(f"BEGIN IMMEDIATE; PRAGMA application_id={APPLICATION_ID}; "
                               f"PRAGMA user_version={RECORD_SCHEMA_VERSION}; {SCHEMA} COMMIT;")

    def put(self, record: RunRecord) -> None:
        """Store one finished run in its own transaction, replacing an older record of its key."""
        row = (record.run_key, record.run_id, record.suite, record.method, record.dataset, record.seed,
               record.status, record.finished_at, record.json_text())
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

    def stored_statuses(self, run_keys: Iterable[str] | None = None) -> dict[str, str]:
        """run_key -> status, for the given keys (or every run)."""
        rows = self._db.execute("SELECT run_key, status FROM runs").fetchall()
        wanted = None if run_keys is None else set(run_keys)
        return {k: s for k, s in rows if wanted is None or k in wanted}

    def stored_runs(self) -> dict[str, tuple[str, str]]:
        """run_key -> (run_id, finished_at) of every stored run."""
        return {k: (i, f) for k, i, f in self._db.execute("SELECT run_key, run_id, finished_at FROM runs")}

    def records(self, run_keys: Iterable[str] | None = None, suite: str | None = None) -> Iterator[RecordJson]:
        """Stored records (of `run_keys`, of `suite`, or all) as their JSON (`RunRecord.as_json`): the form
        reports, exports and comparisons read, which a run export gives back in part."""
        where, args = ("", ()) if suite is None else (" WHERE suite = ?", (suite,))
        wanted = None if run_keys is None else set(run_keys)
        query = f"SELECT run_key, run_id, record FROM runs{where} ORDER BY suite, method, dataset, seed"
        for key, run_id, text in self._db.execute(query, args):
            if wanted is None or key in wanted:
                record, why = loaded_record(text)
                if record is None:
                    self.unreadable[run_id] = why
                else:
                    yield record

    def run_records(self, run_keys: Iterable[str] | None = None) -> Iterator[RunRecord]:
        """Stored records (of `run_keys`, or all) as `RunRecord`s: for code that acts on runs, not reports them."""
        for record in self.records(run_keys):
            yield RunRecord.model_validate(record)

    def planned_records(self, planned: Iterable["RunSpec"]) -> list[RecordJson]:
        """The stored records of `planned` runs (`RunSpec`s), in plan order, labelled as the plan labels them.

        A run's key leaves out its label, so a run stored as `m` is the same run once a grid widens and the
        plan calls it `m[p=1]`: reports and tables must show it under the plan's label, not the stored one.
        """
        planned = list(planned)
        return as_planned(planned, self.records(spec.run_key for spec in planned))

    def claims(self, claimant: Claimant, lease_s: float = LEASE_S, clock: Callable[[], float] = time.time) -> RunClaims:
        """`claimant`'s leases on runs of this store, shared with every coordinator that writes it."""
        return RunClaims(self._db, claimant, lease_s, clock)

    def claim_registration(self, suite: str) -> ClaimRegistration | None:
        """`suite`'s registered claims (`claim_registry`), or None where none was registered."""
        return read_registration(self._db, suite)

    def register_claims(self, registration: ClaimRegistration) -> None:
        """Register a suite's claims, unless it has a registration already (the first one stands)."""
        insert_registration(self._db, registration)

    def claims_unregistered(self, suite: str, run_keys: Iterable[str]) -> bool:
        """Whether the next stored run of `suite` registers its claims: it has no registration and the store holds
        none of its results, under its name or among its planned `run_keys` (runs are shared, `suite_runs`)."""
        if self.claim_registration(suite) is not None:
            return False
        if self._db.execute("SELECT 1 FROM runs WHERE suite = ? LIMIT 1", (suite,)).fetchone():
            return False
        return not self.stored_statuses(run_keys)

    def predictions_path(self, run_id: str) -> Path:
        """Where the run `run_id` wrote its predictions table, for reports that read them back."""
        row = self._db.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        record = None if row is None else loaded_record(row[0])[0]
        named = None if record is None else record.get("predictions")
        if not named:
            raise KeyError(f"store {self.path} has no predictions of run {run_id}")
        return stored_file(self.path, named)

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def integrity_ok(self) -> bool:
        return quick_check_ok(self._db)

    def close(self) -> None:
        """Closes the file, saying which stored records did not load and were skipped (a damaged store's part)."""
        self._db.close()
        if self.unreadable:
            skipped = "; ".join(f"{run_id}: {why}" for run_id, why in sorted(self.unreadable.items())[:5])
            more = f" and {len(self.unreadable) - 5} more" if len(self.unreadable) > 5 else ""
            print(f"warning: store {self.path}: {len(self.unreadable)} stored record(s) do not load and were "
                  f"skipped ({skipped}{more}). Re-run those runs (`harness run SUITE --force`), or restore the "
                  f"store from a backup.", file=sys.stderr)
            self.unreadable = {}

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def loaded_record(text: object) -> tuple[RecordJson | None, str]:
    """A stored record's JSON, or None and why it does not load: not text, not JSON, nested past the parser's
    depth, not an object, or missing a key every record has."""
    try:
        record = json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"not JSON text ({type(exc).__name__})"
    if not isinstance(record, dict):
        return None, f"a JSON {type(record).__name__}, not an object"
    missing = sorted(REQUIRED_KEYS - record.keys())
    if missing:
        return None, f"no {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}"
    return record, ""  # type: ignore[return-value]


def as_planned(planned: list["RunSpec"], records: Iterable[RecordJson]) -> list[RecordJson]:
    """The records of `planned` runs, in plan order, labelled as the plan labels them (see `planned_records`):
    a run another suite executed (runs are shared, see `suite_runs`) is listed under the planning suite."""
    by_key = {r["run_key"]: r for r in records}
    return [{**by_key[spec.run_key], "suite": spec.suite, "method": spec.method, "method_entry": spec.method_entry}
            for spec in planned if spec.run_key in by_key]
