"""Opening a results store's SQLite file without harming it.

Whatever is not ours is refused before anything can write to it (SQLite's WAL switch alone
rewrites the header), the read commands open the file read-only so a store on read-only
media still reports, a writer refuses a damaged file, and SQLite's damage, permission and
disk errors become a `StoreError` that names the file and says how to recover.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from harness.errors import StoreError
from harness.record import RECORD_SCHEMA_VERSION
from harness.run_folders import runs_folder

APPLICATION_ID = 0x48524E53  # "HRNS"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_UNTOUCHED = "Pass --store with another path; this file was left untouched."
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_NOT_PERMITTED = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN}
_DISK = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL}
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def open_store_file(path: Path, read_only: bool) -> sqlite3.Connection:
    """A connection to the harness store at `path` (created unless `read_only`), checked before any write."""
    exists = _exists(path)
    if exists:
        _check_header(path)
    elif read_only:
        raise StoreError(f"store {path} does not exist", hint="Run the suite first, or pass --store.")
    else:
        _make_folder(path)
    db = _connect(path, read_only)
    try:
        _check_ours(db, path, exists)
        if not read_only:
            _switch_to_wal(db)
            db.execute("PRAGMA synchronous=NORMAL")
            if exists and not quick_check_ok(db):
                raise damaged_store(path, "its integrity check fails")
    except BaseException:
        db.close()
        raise
    return db


def _switch_to_wal(db: sqlite3.Connection, wait_s: float = 30.0) -> None:
    """WAL mode, waiting out peers: SQLite answers a journal-mode switch with 'locked' at once, without its
    busy timeout, while another coordinator opening the same new store holds a lock."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) not in _BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def quick_check_ok(db: sqlite3.Connection) -> bool:
    """SQLite's `quick_check`: every page and record well-formed (skips the slower index cross-checks)."""
    return db.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def damaged_store(path: Path, why: str) -> StoreError:
    runs = runs_folder(path)
    return StoreError(
        f"store {path} is damaged ({why})",
        hint=f"Restore it from a backup (`sqlite3 STORE .backup COPY` makes one); or salvage what SQLite can "
             f"still read (`sqlite3 {path} .recover | sqlite3 NEW.sqlite`) and add the runs whose record files "
             f"were still in transit (`harness ingest {runs} --store NEW.sqlite`). Then pass --store NEW.sqlite.",
    )


def store_error(path: Path, exc: sqlite3.Error) -> StoreError | None:
    """The user-facing error for SQLite's damage, permission and disk errors; None for the rest
    (busy, constraint, programming errors), which callers handle or which are bugs."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary in _DAMAGED:
        return damaged_store(path, str(exc))
    if primary in _NOT_PERMITTED:
        return StoreError(f"store {path} cannot be used ({exc})",
                          hint="Check the permissions of the file and its folder (writing needs both; "
                               "plan, report and export only read), or pass --store with another path.")
    if primary in _DISK:
        return StoreError(f"store {path}: disk error ({exc})", hint="Check the disk's free space and health.")
    return None


@contextmanager
def errors_named(path: Path) -> Iterator[None]:
    """SQLite's damage, permission and disk errors inside the block as a `StoreError` naming `path`."""
    try:
        yield
    except sqlite3.Error as exc:
        error = store_error(path, exc)
        if error is None:
            raise
        raise error from None


class _Cursor(sqlite3.Cursor):
    """Rows are read lazily, so fetching can meet a damaged page as well as executing."""

    connection: "StoreConnection"

    def __next__(self) -> Any:
        with errors_named(self.connection.path):
            return super().__next__()

    def fetchone(self) -> Any:
        with errors_named(self.connection.path):
            return super().fetchone()

    def fetchall(self) -> list[Any]:
        with errors_named(self.connection.path):
            return super().fetchall()


class StoreConnection(sqlite3.Connection):
    """A connection whose every statement, fetch and commit names the store file in its errors,
    so no caller (present or future) has to wrap its queries."""

    path: Path

    def cursor(self, factory: type[sqlite3.Cursor] = _Cursor) -> sqlite3.Cursor:  # type: ignore[override]
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        with errors_named(self.path):
            return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        with errors_named(self.path):
            return self.cursor().executemany(sql, rows)

    def executescript(self, script: str) -> sqlite3.Cursor:
        with errors_named(self.path):
            return super().executescript(script)

    def __exit__(self, *exc: Any) -> Any:
        with errors_named(self.path):
            return super().__exit__(*exc)


def _connect(path: Path, read_only: bool) -> StoreConnection:
    """Read-only opens by URI (`mode=ro`); in a read-only folder, where SQLite cannot create the WAL's
    shared-memory file, it falls back to `immutable=1` (nothing can be writing there)."""
    if read_only:
        uri = f"file:{quote(str(path.absolute()))}"
        db = _connection(path, uri + "?mode=ro")
        try:
            db.execute("PRAGMA schema_version").fetchone()
            return db
        except StoreError:
            db.close()
            return _connection(path, uri + "?immutable=1")
    return _connection(path, str(path))


def _connection(path: Path, database: str) -> StoreConnection:
    with errors_named(path):
        db = sqlite3.connect(database, timeout=30, isolation_level=None, uri=database.startswith("file:"),
                             factory=StoreConnection)
    db.path = path
    return db


def _check_ours(db: sqlite3.Connection, path: Path, existed: bool) -> None:
    """Only reads: a foreign database (tables, not our id) or a newer schema is refused untouched.

    The three reads share one read transaction: a coordinator creating the store meanwhile is seen
    before its stamp or after its tables, never half-way (its id unset but its version or tables there)."""
    db.execute("BEGIN")
    try:
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        schema = db.execute("PRAGMA user_version").fetchone()[0]
        tables = db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    finally:
        db.execute("COMMIT")
    if existed and app_id != APPLICATION_ID and (tables or app_id or schema):
        raise StoreError(f"{path} is a SQLite database but not a harness results store", hint=_UNTOUCHED)
    if schema > RECORD_SCHEMA_VERSION:
        raise StoreError(f"{path} has record schema {schema}, newer than this harness reads "
                         f"({RECORD_SCHEMA_VERSION})", hint="Upgrade the harness to read it.")


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError as exc:
        raise StoreError(f"store {path} cannot be reached ({exc.strerror})",
                         hint="Check the permissions of the folders above it, or pass --store.") from None


def _check_header(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"store {path} is a folder, not a file", hint="Pass --store with a file path.")
    try:
        with path.open("rb") as handle:
            header = handle.read(16)
    except OSError as exc:
        raise StoreError(f"store {path} cannot be read ({exc.strerror})",
                         hint="Check the file's permissions, or pass --store.") from None
    if header and header != _SQLITE_MAGIC:
        raise StoreError(f"{path} is not a harness results store (not an SQLite file)", hint=_UNTOUCHED)


def _make_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next(p for p in (path.parent, *path.parent.parents) if p.exists())
        raise StoreError(f"store {path} cannot be created: {blocking} is a file, not a folder",
                         hint="Pass --store with a path inside a folder.") from None
    except OSError as exc:
        raise StoreError(f"store {path} cannot be created ({exc.strerror})",
                         hint="Check the folder's permissions, or pass --store with another path.") from None
