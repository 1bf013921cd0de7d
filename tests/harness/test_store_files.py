"""Store files that are damaged, foreign, read-only or unreachable: a clear exit-3 message, never a traceback,
and never a write into a file that is not a healthy harness store."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from harness.errors import StoreError
from harness.store import SCHEMA, Store
from tests.harness.read_only import read_only

SQLITE_HEADER = 100


@pytest.fixture
def stored(cli, write_suite, store) -> tuple[Path, Path]:
    """(suite file, store) after running the toy suite inline."""
    suite = write_suite()
    code, _, err = cli("run", str(suite), "--store", str(store), "--executor", "inline")
    assert code == 0, err
    return suite, store


def _commands(suite: Path, store: Path, other: Path) -> dict[str, list[str]]:
    out = store.parent.parent / "out"
    return {
        "plan": ["plan", str(suite), "--store", str(store)],
        "export": ["export", "--out", str(out / "runs.csv"), "--store", str(store)],
        "report": ["report", str(suite), "--out", str(out), "--format", "md", "--store", str(store)],
        "run": ["run", str(suite), "--executor", "inline", "--store", str(store)],
        "ingest": ["ingest", str(store.parent), "--store", str(store)],
        "compare": ["compare", str(store), str(other)],
    }


def _page_size(path: Path) -> int:
    size = int.from_bytes(path.read_bytes()[16:18], "big")
    return 65536 if size == 1 else size


def _damage_every_page(path: Path) -> None:
    """Overwrite the first bytes of every page after the first (its b-tree page header)."""
    data, size = bytearray(path.read_bytes()), _page_size(path)
    for start in range(size, len(data), size):
        data[start:start + 12] = bytes(range(200, 212))
    path.write_bytes(data)


@pytest.mark.parametrize("command", ["plan", "export", "report", "run", "ingest", "compare"])
def test_every_command_names_a_damaged_store_and_how_to_recover(cli, stored, tmp_path, command):
    suite, store = stored
    healthy = tmp_path / "healthy.sqlite"
    shutil.copy(store, healthy)
    _damage_every_page(store)
    code, _, err = cli(*_commands(suite, store, healthy)[command])
    assert code == 3, err
    assert f"store {store} is damaged" in err and ".recover" in err and "harness ingest" in err


def test_run_refuses_a_store_whose_quick_check_fails_and_writes_nothing(cli, stored):
    """Page 2's count of fragmented free bytes made wrong: every query still works, only the check sees it."""
    suite, store = stored
    data = bytearray(store.read_bytes())
    data[_page_size(store) + 7] ^= 0xFF
    store.write_bytes(data)
    damaged = bytes(data)
    code, _, err = cli("run", str(suite), "--executor", "inline", "--force", "--store", str(store))
    assert code == 3 and "is damaged (its integrity check fails)" in err
    assert store.read_bytes() == damaged


@pytest.mark.parametrize("command", ["plan", "export", "report", "run", "ingest"])
def test_a_foreign_sqlite_file_is_refused_and_left_byte_for_byte_untouched(cli, write_suite, tmp_path, command):
    foreign = tmp_path / "app" / "their.db"
    foreign.parent.mkdir()
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    before = foreign.read_bytes()
    code, _, err = cli(*_commands(write_suite(), foreign, foreign)[command])
    assert code == 3 and "not a harness results store" in err
    assert foreign.read_bytes() == before and sorted(p.name for p in foreign.parent.iterdir()) == ["their.db"]


def test_reading_a_store_never_writes_to_it(cli, stored, tmp_path):
    """A store in rollback-journal mode (e.g. copied by a backup tool) stays byte-identical under the read commands."""
    suite, store = stored
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    db.close()
    before = store.read_bytes()
    for command in ("plan", "export", "report"):
        code, _, err = cli(*_commands(suite, store, store)[command])
        assert code == 0, err
    assert store.read_bytes() == before


def test_read_commands_read_a_store_in_a_read_only_folder(cli, stored, tmp_path):
    suite, store = stored
    shutil.rmtree(store.parent / f"{store.stem}-runs")
    with read_only(store.parent):
        for command in ("plan", "export", "report"):
            code, out, err = cli(*_commands(suite, store, store)[command])
            assert code == 0, err
        code, _, err = cli(*_commands(suite, store, store)["run"], "--force")
    assert code == 3 and f"store {store}" in err and "permissions" in err


def test_a_store_path_under_a_regular_file_is_a_user_error(cli, write_suite, tmp_path):
    blocking = tmp_path / "somefile.txt"
    blocking.write_text("not a folder\n")
    code, _, err = cli("run", str(write_suite()), "--store", str(blocking / "results.sqlite"))
    assert code == 3 and f"{blocking} is a file, not a folder" in err


def test_a_read_only_store_opens_without_creating_anything(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        Store(tmp_path / "absent.sqlite", read_only=True)
    assert list(tmp_path.iterdir()) == []


def test_a_store_being_created_is_ours_between_any_two_of_its_statements(tmp_path, monkeypatch):
    """Two coordinators started at once: the second may open the file between the first's statements."""
    from harness import store_open

    path, checked, peer_opening = tmp_path / "results.sqlite", [], []
    creating = ("CREATE", "application_id", "user_version")

    def then_a_peer_opens(statement):
        def run(db, sql, *args):
            result = statement(db, sql, *args)
            if not peer_opening and any(word in sql for word in creating):
                peer_opening.append(True)
                store_open.open_store_file(path, True, SCHEMA).close()  # raises if the file looks foreign or half-made
                peer_opening.clear()
                checked.append(sql)
            return result
        return run

    for name in ("execute", "executescript"):
        original = getattr(store_open.StoreConnection, name)
        monkeypatch.setattr(store_open.StoreConnection, name, then_a_peer_opens(original))
    Store(path).close()
    assert any("CREATE TABLE" in sql for sql in checked)
