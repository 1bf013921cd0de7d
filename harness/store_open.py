"""Opening a results store's SQLite file without harming it.

Every state a file can be in is classified before anything can write to it (SQLite's WAL switch alone
rewrites the header): not a regular file (a fifo would hang the open, a device would swallow the writes), not
SQLite, cut short, foreign, newer, or with tables of other shapes is refused untouched; a store whose creation
was interrupted (an empty file, or our stamp without tables) is finished by a writer and reads as empty. The
read commands open the file read-only so a store on read-only media still reports, every command refuses a file
whose integrity check fails, and SQLite's damage, permission, disk and lock errors become a `StoreError` that
names the file and says how to recover.
"""
from __future__ import annotations

import functools
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from harness.errors import StoreError
from harness.record import RECORD_SCHEMA_VERSION
from harness.regular_files import file_kind
from harness.run_folders import runs_folder
from harness.store_locks import lock_holders

APPLICATION_ID = 0x48524E53  # "HRNS"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_UNTOUCHED = "Pass --store with another path; this file was left untouched."
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_NOT_PERMITTED = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN}
_DISK = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL}
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
# How long a command waits for another process's lock on the store before it gives up and names the holder.
WAIT_ENV = "HARNESS_STORE_WAIT_S"
_DEFAULT_WAIT_S = 30.0


class StoreBusyError(StoreError):
    """Another process held the store locked for longer than this command waits."""


def open_store_file(path: Path, read_only: bool, schema: str) -> "StoreConnection":
    """A connection to the harness store at `path` (created unless `read_only`), checked before any write.

    `schema` is the store's tables: a file holding tables of other shapes is refused, and a read-only open of a
    store holding none (its creation was interrupted) answers from an empty in-memory copy of them."""
    exists = _exists(path)
    if exists:
        _check_file(path)
    elif read_only:
        raise StoreError(f"store {path} does not exist", hint="Run the suite first, or pass --store.")
    else:
        _make_folder(path)
    db = _connect(path, read_only)
    try:
        _check_ours(db, path, exists)
        if exists:
            has_tables = _check_tables(db, path, schema)
            if has_tables and not quick_check_ok(db):
                raise damaged_store(path, "its integrity check fails")
            if read_only and not has_tables:
                db.close()
                return _empty_store(path, schema)
        if not read_only:
            _switch_to_wal(db)
            db.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        db.close()
        raise
    return db


def _check_tables(db: "StoreConnection", path: Path, schema: str) -> bool:
    """Whether the store holds its tables; refuses (untouched) one without its `runs` table or whose tables differ
    from `schema` in kind (a view) or columns. No tables at all is a store whose creation was interrupted; a
    table other than `runs` may be absent (a store older than it gains it when next written)."""
    present = dict(db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')").fetchall())
    if not present:
        return False
    if "runs" not in present:
        raise damaged_store(path, "it has no `runs` table")
    for table, columns in _schema_columns(schema).items():
        kind = present.get(table)
        if kind is None:
            continue
        if kind != "table":
            raise damaged_store(path, f"its `{table}` is a {kind}, not a table")
        found = _table_columns(db, None, table)[table]
        if found != columns:
            raise damaged_store(path, f"its `{table}` table has the columns {', '.join(found)}, not "
                                      f"{', '.join(columns)}")
    return True


@functools.cache
def _schema_columns(schema: str) -> dict[str, list[str]]:
    """The columns of every table `schema` creates, made once per process in a scratch database."""
    with closing(sqlite3.connect(":memory:")) as scratch:
        return _table_columns(scratch, schema)


def _table_columns(db: sqlite3.Connection, schema: str | None, *tables: str) -> dict[str, list[str]]:
    """Each table's column names, in order: of `tables` in `db`, or of every table `schema` creates."""
    if schema is not None:
        db.executescript(schema)
        tables = tuple(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    return {table: [row[1] for row in db.execute(f"PRAGMA table_info('{table}')")] for table in tables}


def _empty_store(path: Path, schema: str) -> "StoreConnection":
    """An in-memory store holding `schema`'s tables, empty: what a store whose creation was interrupted holds."""
    db = _connection(path, ":memory:")
    db.executescript(schema)
    return db


def _switch_to_wal(db: sqlite3.Connection) -> None:
    """WAL mode, waiting out peers: SQLite answers a journal-mode switch with 'locked' at once, without its
    busy timeout, while another coordinator opening the same new store holds a lock."""
    deadline = time.monotonic() + wait_s()
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except StoreBusyError:
            if time.monotonic() > deadline:
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
    """The user-facing error for SQLite's damage, permission, disk and lock errors; None for the rest
    (constraint and programming errors), which are bugs."""
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
    if primary in _BUSY:
        holders = lock_holders(path)
        held = f" by {', '.join(holders)}" if holders else " by another process"
        return StoreBusyError(f"store {path} is locked{held}; waited {wait_s():g} s",
                              hint=f"Wait for it to finish (or end it), or pass --store with another path. "
                                   f"{WAIT_ENV}=SECONDS sets how long commands wait.")
    return None


def wait_s() -> float:
    """How long a statement waits for another process's lock ($HARNESS_STORE_WAIT_S, default 30 s)."""
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, _DEFAULT_WAIT_S)))
    except ValueError:
        raise StoreError(f"{WAIT_ENV}={os.environ[WAIT_ENV]!r} is not a number of seconds",
                         hint=f"Set {WAIT_ENV} to a number, e.g. 30.") from None


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
        except StoreBusyError:
            db.close()
            raise
        except StoreError:
            db.close()
            return _connection(path, uri + "?immutable=1")
    return _connection(path, str(path))


def _connection(path: Path, database: str) -> StoreConnection:
    with errors_named(path):
        db = sqlite3.connect(database, timeout=wait_s(), isolation_level=None, uri=database.startswith("file:"),
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
        return path.exists() or path.is_symlink()
    except OSError as exc:
        raise StoreError(f"store {path} cannot be reached ({exc.strerror})",
                         hint="Check the permissions of the folders above it, or pass --store.") from None


def _check_file(path: Path) -> None:
    """Refuses, without opening it, what is not a regular file; then, reading its first page's header only, what
    is not SQLite or is not a whole number of its pages (a file cut short loses the end of a record)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise StoreError(f"store {path} cannot be read ({exc.strerror})",
                         hint="Check the path (a link must point at a file) and its permissions, or pass --store."
                         ) from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(f"store {path} is a folder, not a file", hint="Pass --store with a file path.")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"store {path} is not a regular file (it is {file_kind(info.st_mode)})",
                         hint="Pass --store with the path of a file.")
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        raise StoreError(f"store {path} cannot be read ({exc.strerror})",
                         hint="Check the file's permissions, or pass --store.") from None
    if header and not header.startswith(_SQLITE_MAGIC):
        raise StoreError(f"{path} is not a harness results store (not an SQLite file)", hint=_UNTOUCHED)
    if header and info.st_size % _page_size(header):
        raise damaged_store(path, f"its {info.st_size} bytes are not a whole number of its "
                                  f"{_page_size(header)}-byte pages: it was cut short")


def _page_size(header: bytes) -> int:
    """The page size the header records (bytes 16-17; 1 means 65,536); a short or invalid header reads as 512,
    SQLite's smallest, so the size check cannot divide by zero."""
    size = int.from_bytes(header[16:18], "big") if len(header) >= 18 else 0
    return 65536 if size == 1 else size if size >= 512 and size & (size - 1) == 0 else 512


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
