"""Stores in every state a user's disk can hold them in, for the store-state x command matrix
(`test_store_states.py`): damaged, foreign, half-created, locked, holding records that do not load, or not a file.

Run as a script (`python -m tests.harness.store_states`) it runs the whole matrix through the real command line,
one process per cell, and counts the cells that trace back, hang, or change a file they refused: the figures
issue 52's closing note compares before and after.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from harness.store_open import APPLICATION_ID

Builder = Callable[[Path, Path], None]  # (healthy store, path to make) -> None


def _copy(healthy: Path, path: Path) -> None:
    shutil.copy(healthy, path)


def _execute(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            db.execute(statement)
    finally:
        db.close()


def truncated_by_one_byte(healthy: Path, path: Path) -> None:
    _copy(healthy, path)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 1)


def empty_file(healthy: Path, path: Path) -> None:
    """What a coordinator killed while creating a new store leaves."""
    path.write_bytes(b"")


def empty_database(healthy: Path, path: Path) -> None:
    _execute(path, "CREATE TABLE t (x)", "DROP TABLE t")


def our_id_without_tables(healthy: Path, path: Path) -> None:
    _execute(path, f"PRAGMA application_id={APPLICATION_ID}")


def runs_table_renamed(healthy: Path, path: Path) -> None:
    _copy(healthy, path)
    _execute(path, "ALTER TABLE runs RENAME TO runs_old")


def runs_with_other_columns(healthy: Path, path: Path) -> None:
    _copy(healthy, path)
    _execute(path, "DROP TABLE runs", "CREATE TABLE runs (run_key TEXT PRIMARY KEY, note TEXT)")


def runs_is_a_view(healthy: Path, path: Path) -> None:
    _copy(healthy, path)
    _execute(path, "ALTER TABLE runs RENAME TO kept", "CREATE VIEW runs AS SELECT * FROM kept")


def _one_record(text: str | bytes | None) -> Builder:
    def build(healthy: Path, path: Path) -> None:
        _copy(healthy, path)
        db = sqlite3.connect(path, isolation_level=None)
        try:
            first = db.execute("SELECT run_key FROM runs ORDER BY run_key LIMIT 1").fetchone()[0]
            db.execute("UPDATE runs SET record = ? WHERE run_key = ?", (text, first))
        finally:
            db.close()
    return build


def integrity_check_fails(healthy: Path, path: Path) -> None:
    """Page 2's count of fragmented free bytes made wrong: every query still works, only the check sees it."""
    _copy(healthy, path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[(65536 if page == 1 else page) + 7] ^= 0xFF
    path.write_bytes(data)


def null_device(healthy: Path, path: Path) -> None:
    path.symlink_to(os.devnull)


def fifo(healthy: Path, path: Path) -> None:
    os.mkfifo(path)


STATES: dict[str, Builder] = {
    "truncated_by_one_byte": truncated_by_one_byte,
    "empty_file": empty_file,
    "empty_database": empty_database,
    "our_id_without_tables": our_id_without_tables,
    "runs_table_renamed": runs_table_renamed,
    "runs_with_other_columns": runs_with_other_columns,
    "runs_is_a_view": runs_is_a_view,
    "record_is_a_blob": _one_record(bytes(range(256))),
    "record_is_null_json": _one_record("null"),
    "record_is_an_array": _one_record("[1, 2, 3]"),
    "record_nested_too_deep": _one_record("[" * 100_000 + "]" * 100_000),
    "record_misses_its_keys": _one_record('{"run_id": "x"}'),
    "integrity_check_fails": integrity_check_fails,
    "null_device": null_device,
    "fifo": fifo,
}
# States a writer may use as they are: a new store whose creation was interrupted, or records some runs' of
# which do not load (their runs are skipped by name). Every other state is refused, untouched, with exit 3.
USABLE = {"empty_file", "empty_database", "our_id_without_tables", "record_is_a_blob", "record_is_null_json",
          "record_is_an_array", "record_nested_too_deep", "record_misses_its_keys"}
COMMANDS = ("plan", "run", "report", "export", "ingest")
# Another process holding the store: SQLite's exclusive locking mode, or a long write transaction.
LOCKS = ("exclusive", "immediate")
_HOLD = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
else:
    db.execute("BEGIN IMMEDIATE")
db.execute("UPDATE runs SET status = status")
print("held", flush=True)
time.sleep(120)
"""


@contextmanager
def held(store: Path, lock: str) -> Iterator[int]:
    """Another process holding `store` with `lock` while the block runs; yields its pid."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(store), lock], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


def command_line(command: str, suite: Path, store: Path, out: Path) -> list[str]:
    return {
        "plan": ["plan", str(suite), "--store", str(store)],
        "run": ["run", str(suite), "--executor", "inline", "--store", str(store)],
        "report": ["report", str(suite), "--out", str(out), "--format", "md", "--store", str(store)],
        "export": ["export", "--out", str(out / "runs.csv"), "--store", str(store)],
        "ingest": ["ingest", str(store.parent), "--store", str(store)],
    }[command]


def file_digest(path: Path) -> str:
    """The bytes of a regular file (and of its WAL beside it); a fifo or device is named by its kind."""
    if not path.is_file():
        return "not a regular file"
    digest = hashlib.sha256(path.read_bytes())
    wal = path.with_name(path.name + "-wal")
    if wal.is_file():
        digest.update(wal.read_bytes())
    return digest.hexdigest()


def _measure() -> None:
    """Every cell through `python -m harness`, 60 s each (a lock is waited for 30 s by default): tracebacks,
    hangs, and files in a state no command may use (neither `USABLE` nor locked) that a command changed."""
    repo = Path(__file__).resolve().parents[2]
    plugin = repo / "tests" / "plugins" / "toy_family.py"
    from tests.conftest import TOY_SUITE

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        suite = root / "suite.yaml"
        suite.write_text(textwrap.dedent(TOY_SUITE))
        healthy = root / "healthy" / "results.sqlite"

        def harness(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "harness", *args, "--plugin", str(plugin)],
                                  capture_output=True, text=True, timeout=60, cwd=repo)

        assert harness(*command_line("run", suite, healthy, root)).returncode == 0
        counts = dict.fromkeys(("calls", "tracebacks", "hangs", "damaged files written"), 0)
        cells = [(name, None) for name in STATES] + [(f"locked_{lock}", lock) for lock in LOCKS]
        for name, lock in cells:
            for command in COMMANDS:
                store = root / f"{name}-{command}" / "results.sqlite"
                store.parent.mkdir()
                (_copy if lock else STATES[name])(healthy, store)
                before = file_digest(store)
                counts["calls"] += 1
                try:
                    with held(store, lock) if lock else nullcontext():
                        result = harness(*command_line(command, suite, store, store.parent / "out"))
                except subprocess.TimeoutExpired:
                    counts["hangs"] += 1
                    print(f"{name} x {command}: hangs")
                    continue
                trace = "Traceback" in result.stderr
                changed = not lock and name not in USABLE and file_digest(store) != before
                counts["tracebacks"] += trace
                counts["damaged files written"] += changed
                if trace or changed:
                    last = (result.stderr.strip().splitlines() or [""])[-1]
                    print(f"{name} x {command}: exit {result.returncode}, {'traceback' if trace else 'changed'}: "
                          f"{last[:120]}")
        print(", ".join(f"{value} {key}" for key, value in counts.items()))


if __name__ == "__main__":
    _measure()
