"""Every command on a store in every state (`store_states.STATES`): refused with exit 3, naming the store and
leaving its bytes as they were, or used as it is where that is safe; never a traceback, never a hang."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from harness.store import Store
from harness.store_open import WAIT_ENV
from tests.harness.store_states import COMMANDS, LOCKS, STATES, USABLE, command_line, file_digest, held

RECORD_STATES = {name for name in USABLE if name.startswith("record_")}


@pytest.fixture(scope="module")
def healthy(tmp_path_factory) -> Path:
    """A store holding the toy suite's 4 runs, made once for the whole matrix."""
    from tests.conftest import TOY_PLUGIN, TOY_SUITE

    from harness.cli import main

    folder = tmp_path_factory.mktemp("healthy")
    suite = folder / "suite.yaml"
    suite.write_text(textwrap.dedent(TOY_SUITE))
    store = folder / "results.sqlite"
    assert main([*command_line("run", suite, store, folder), "--plugin", TOY_PLUGIN]) == 0
    return store


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("state", sorted(STATES))
def test_every_command_refuses_or_uses_a_store_in_any_state(cli, write_suite, healthy, tmp_path, state, command):
    store = tmp_path / "store" / "results.sqlite"
    store.parent.mkdir()
    STATES[state](healthy, store)
    before = file_digest(store)
    code, _, err = cli(*command_line(command, write_suite(), store, tmp_path / "out"))
    if state not in USABLE:
        assert code == 3, err
        assert str(store) in err and file_digest(store) == before
        return
    assert code in (0, 3), err
    if state in RECORD_STATES and command in ("report", "export"):
        assert code == 0 and "1 stored record(s) do not load and were skipped" in err, err


def test_a_store_cut_short_says_so(cli, write_suite, healthy, tmp_path):
    store = tmp_path / "results.sqlite"
    STATES["truncated_by_one_byte"](healthy, store)
    code, _, err = cli("report", str(write_suite()), "--out", str(tmp_path / "out"), "--store", str(store))
    assert code == 3 and "not a whole number of its" in err and "cut short" in err and ".recover" in err


def test_a_run_finishes_a_store_whose_creation_was_interrupted(cli, write_suite, tmp_path):
    store = tmp_path / "results.sqlite"
    store.write_bytes(b"")
    code, _, err = cli("run", str(write_suite()), "--executor", "inline", "--store", str(store))
    assert code == 0, err
    with Store(store, read_only=True) as results:
        assert results.count() == 4


def test_reading_a_store_whose_creation_was_interrupted_finds_it_empty(tmp_path):
    store = tmp_path / "results.sqlite"
    store.write_bytes(b"")
    with Store(store, read_only=True) as results:
        assert results.count() == 0 and list(results.records()) == []
    assert store.read_bytes() == b""


def test_a_record_that_does_not_load_is_skipped_by_name(healthy, tmp_path, capsys):
    store = tmp_path / "results.sqlite"
    STATES["record_is_an_array"](healthy, store)
    with Store(store, read_only=True) as results:
        assert len(list(results.records())) == 3
    err = capsys.readouterr().err
    assert "1 stored record(s) do not load" in err and "a JSON list, not an object" in err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("command", ["plan", "run", "report", "export"])
def test_a_locked_store_is_waited_for_then_refused_naming_its_holder(cli, write_suite, healthy, tmp_path,
                                                                    monkeypatch, lock, command):
    store = tmp_path / "results.sqlite"
    shutil.copy(healthy, store)
    monkeypatch.setenv(WAIT_ENV, "0.3")
    with held(store, lock) as holder:
        code, _, err = cli(*command_line(command, write_suite(), store, tmp_path / "out"))
    if code == 0:  # WAL lets readers read past a writer's open transaction
        assert lock == "immediate" and command != "run", err
        return
    assert code == 3, err
    assert f"store {store} is locked by pid {holder}" in err and WAIT_ENV in err
