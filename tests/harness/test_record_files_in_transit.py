"""A file in a run folder that is named like a record file but is no plain file (a fifo, a link to /dev/zero, a
folder) or is too large for one is skipped and named, never read into a hang (issue 52). The commands run in a
subprocess with a timeout and a memory cap, so a regression fails the test instead of hanging or filling memory."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from harness.record_files import ingest, write_record_file
from harness.regular_files import FileTooLarge, NotAPlainFile, read_plain_file
from harness.run_folders import records_folder
from harness.store import Store
from tests.conftest import REPO, TOY_PLUGIN, TOY_SUITE
from tests.harness.records import a_record

_TIMEOUT_S = 60
_MEMORY_CAP = 2 * 2**30


def _harness(*args: str) -> subprocess.CompletedProcess:
    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_CAP, _MEMORY_CAP))

    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=_TIMEOUT_S, preexec_fn=cap_memory)


def _good_and_planted(folder: Path, plant) -> tuple[Path, Path]:  # noqa: ANN001
    """A good record file, and `plant(path)` at the name another run's record file would have."""
    good = write_record_file(a_record(run_key="key0", run_id="id0"), folder)
    planted = good.parent / "key1.id1.json"
    plant(planted)
    return good, planted


@pytest.mark.parametrize(("plant", "kind"), [
    (os.mkfifo, "a fifo"),
    (lambda path: path.symlink_to("/dev/zero"), "a symbolic link"),
    (lambda path: path.mkdir(), "a folder"),
])
def test_ingest_skips_and_names_a_file_that_is_not_a_plain_file(tmp_path, plant, kind):
    good, planted = _good_and_planted(tmp_path / "runs", plant)
    result = _harness("ingest", str(tmp_path / "runs"), "--store", str(tmp_path / "s.sqlite"))
    assert result.returncode == 0, result.stderr
    assert "1 runs ingested" in result.stdout and "1 files that are not plain record files skipped" in result.stdout
    assert f"skipped {planted}: it is {kind}, not a regular file" in result.stderr
    assert "Traceback" not in result.stderr
    assert not good.exists() and os.path.lexists(planted)  # stored and removed; the odd file left as it was


def test_run_skips_a_fifo_in_its_records_folder_and_runs_the_suite(tmp_path):
    suite, store = tmp_path / "suite.yaml", tmp_path / "store" / "results.sqlite"
    suite.write_text(TOY_SUITE)
    folder = records_folder(Store(store).artifacts_dir, "toy")
    folder.mkdir(parents=True)
    os.mkfifo(folder / "key1.id1.json")
    result = _harness("run", str(suite), "--store", str(store), "--plugin", TOY_PLUGIN)
    assert result.returncode == 0, result.stderr
    assert "4 runs executed (0 failed)" in result.stdout
    assert f"skipped {folder / 'key1.id1.json'}: it is a fifo, not a regular file" in result.stderr


def test_a_record_file_over_the_cap_is_skipped_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr("harness.record_files.MAX_RECORD_FILE_BYTES", 100)
    good = write_record_file(a_record(run_key="key0", run_id="id0"), tmp_path / "runs")
    with Store(tmp_path / "s.sqlite") as store:
        report = ingest(tmp_path / "runs", store)
    assert report.added == [] and good.exists()
    size = good.stat().st_size
    assert report.not_plain == [(good, f"it holds {size:,} bytes, over the cap of 100")]


def test_read_plain_file_refuses_links_unless_followed_and_caps_the_size(tmp_path):
    target = tmp_path / "target.json"
    target.write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(NotAPlainFile, match="it is a symbolic link"):
        read_plain_file(tmp_path / "link.json", 100)
    assert read_plain_file(tmp_path / "link.json", 100, follow_symlinks=True) == b"{}"
    with pytest.raises(FileTooLarge, match="it holds 2 bytes, over the cap of 1"):
        read_plain_file(target, 1)
    with pytest.raises(NotAPlainFile, match="it is a character device"):
        read_plain_file(Path("/dev/zero"), 100, follow_symlinks=True)


def test_a_record_holding_a_lone_surrogate_is_skipped_and_the_rest_stored(tmp_path):
    """A "\\ud800" escape in a record's JSON once stopped the ingest with a UnicodeEncodeError in the store."""
    folder = tmp_path / "runs"
    write_record_file(a_record(run_key="key0", run_id="id0"), folder)
    bad = write_record_file(a_record(run_key="key1", run_id="id1", method="thr\ud800"), folder)
    with Store(tmp_path / "s.sqlite") as store:
        report = ingest(folder, store)
        assert report.added == ["key0"] and store.count() == 1
    assert report.corrupt == [(bad, "it holds a lone surrogate (a \\ud800-style escape), which UTF-8 cannot encode")]
