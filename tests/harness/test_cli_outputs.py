"""An `--out` that cannot be written (a read-only folder, a path under a regular file, a folder where a file
belongs, a full disk) is a user error naming the path (exit 3), in every command that writes one."""
from __future__ import annotations

import errno
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import USER_ERROR_EXIT
from harness.output_paths import writing_outputs
from tests.conftest import TOY_PLUGIN, TOY_SUITE
from tests.harness.read_only import read_only


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, Path]:
    """The toy suite (as suites/toy.yaml, for `site`) and a store holding its runs."""
    folder = tmp_path_factory.mktemp("outputs")
    suite = folder / "toy.yaml"
    suite.write_text(TOY_SUITE)
    store = folder / "store" / "results.sqlite"
    assert main(["run", str(suite), "--store", str(store), "--executor", "inline", "--plugin", TOY_PLUGIN]) == 0
    return suite, store


def _command(name: str, suite: Path, store: Path, out: Path) -> list[str]:
    return {
        "report": ["report", str(suite), "--store", str(store), "--format", "md,csv", "--out", str(out)],
        "export": ["export", "--store", str(store), "--out", str(out)],
        "site": ["site", suite.stem, "--suites-dir", str(suite.parent), "--store", str(store), "--out", str(out)],
        "compare": ["compare", str(store), str(store), "--out", str(out)],
    }[name]


FOLDER_OUTPUTS = ("report", "site")  # --out is a folder; export and compare write one file


@pytest.mark.parametrize("command", ["report", "export", "site", "compare"])
def test_an_out_under_a_regular_file_is_a_user_error_naming_the_file(command, cli, stored, tmp_path):
    blocking = tmp_path / "notes.txt"
    blocking.write_text("a file, not a folder")
    code, _, err = cli(*_command(command, *stored, blocking / "out" / "result.csv"))
    assert code == USER_ERROR_EXIT
    assert f"{blocking} is a file" in err and "--out" in err


@pytest.mark.parametrize("command", ["report", "export", "site", "compare"])
def test_an_out_of_the_wrong_kind_is_a_user_error(command, cli, stored, tmp_path):
    """A folder's path where a file is written (export, compare), a file's where a folder is (report, site)."""
    out = tmp_path / "existing"
    if command in FOLDER_OUTPUTS:
        out.write_text("a file")
        expected = "it is a file, where a folder is written"
    else:
        out.mkdir()
        expected = "it is a folder, where a file is written"
    code, _, err = cli(*_command(command, *stored, out))
    assert code == USER_ERROR_EXIT
    assert f"cannot write {out}: {expected}" in err


@pytest.mark.parametrize("command", ["report", "export", "site", "compare"])
def test_an_out_in_a_read_only_folder_is_a_user_error(command, cli, stored, tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir()
    with read_only(folder):
        code, _, err = cli(*_command(command, *stored, folder / "out"))
    assert code == USER_ERROR_EXIT, err
    assert f"cannot write {folder / 'out'}" in err and f"make {folder} writable" in err


def test_a_refused_write_names_the_path_and_the_folder_to_fix(tmp_path):
    out = tmp_path / "reports" / "toy"
    with pytest.raises(Exception) as raised, writing_outputs(out):
        raise PermissionError(errno.EACCES, "Permission denied", str(out))
    assert str(raised.value) == (f"--out: cannot write {out}: permission denied. Give --out a path in a folder you "
                                 f"can write to, or make {tmp_path} writable.")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_an_export_to_a_full_disk_is_a_user_error(cli, stored):
    code, _, err = cli("export", "--store", str(stored[1]), "--out", "/dev/full")
    assert code == USER_ERROR_EXIT and "cannot write /dev/full: the disk is full" in err


def test_a_reproduction_out_under_a_regular_file_is_a_user_error(cli, stored, tmp_path):
    suite, store = stored
    blocking = tmp_path / "notes.txt"
    blocking.write_text("a file, not a folder")
    code, _, err = cli("reproduce", str(suite), "--store", str(store), "--sample", "1", "--jobs", "1",
                       "--scratch", str(tmp_path / "scratch"), "--out", str(blocking / "reproduce.json"))
    assert code == USER_ERROR_EXIT, err
    assert f"{blocking} is a file" in err and "--out" in err
