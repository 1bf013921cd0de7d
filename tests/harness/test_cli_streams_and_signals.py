"""What the command prints and how it stops: a full or closed stdout, and a signal (Ctrl-C during the first
imports, SIGTERM at any time) end with a documented exit code and one line, never a traceback."""
from __future__ import annotations

import errno
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import INTERRUPTED_EXIT, STREAM_FAILED_EXIT, main
from harness.cli.exit_codes import RESUME_HINT
from harness.errors import USER_ERROR_EXIT
from harness.store import Store
from tests.conftest import REPO, TOY_PLUGIN, interruptible
from tests.harness.test_resume import SLOW_SUITE, _stored


def _harness(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args, "--plugin", TOY_PLUGIN]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_plan_into_a_full_stdout_exits_74_with_one_line(write_suite, store):
    suite = write_suite()
    with open("/dev/full", "w") as full:
        done = subprocess.run(_harness("plan", str(suite), "--store", str(store)), stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert done.returncode == STREAM_FAILED_EXIT == 74
    assert done.stderr == "error: cannot write to stdout: No space left on device\n"  # no "Exception ignored"


def test_ls_into_a_stdout_it_cannot_write_exits_74_with_one_line(tmp_path):
    read_only = tmp_path / "stdout"
    read_only.write_text("")
    with read_only.open() as stdout:  # open for reading: a write to it fails with EBADF
        done = subprocess.run(_harness("ls", "methods"), stdout=stdout, stderr=subprocess.PIPE, text=True,
                              cwd=REPO, timeout=120)
    assert done.returncode == STREAM_FAILED_EXIT
    assert done.stderr == "error: cannot write to stdout: Bad file descriptor\n"


def test_a_user_error_into_a_full_stderr_keeps_its_exit_code(monkeypatch):
    class Full:
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self) -> None:
            pass

    monkeypatch.setattr(sys, "stderr", Full())
    assert main(["plan", "no-such-suite.yaml"]) == USER_ERROR_EXIT


def _start_until_imported(module: str, entry: str, *args: str) -> subprocess.Popen:
    """`python -m ENTRY ARGS`, returned once it has imported `module` (Python's -X importtime output shows it):
    a signal sent now lands while the command's modules are still being imported, or just after. Its stderr is
    read a byte at a time (unbuffered), so that `communicate` gets the rest whole."""
    process = interruptible([sys.executable, "-X", "importtime", "-m", entry, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0, cwd=REPO)
    assert process.stderr is not None
    while line := process.stderr.readline():
        if line.decode().split("|")[-1].strip() == module:
            return process
    raise AssertionError(f"{module} was never imported")


def _without_import_times(err: bytes) -> str:
    return "".join(line for line in err.decode().splitlines(keepends=True) if not line.startswith("import time:"))


@pytest.mark.parametrize("entry", ["harness", "harness.cli"])
@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_first_imports_exits_130_with_one_line(entry, sent, write_suite, store):
    suite = write_suite()
    process = _start_until_imported("harness.cli.options", entry, "plan", str(suite), "--store", str(store))
    process.send_signal(sent)
    _, err = process.communicate(timeout=60)
    assert process.returncode == INTERRUPTED_EXIT == 130
    assert _without_import_times(err) == "interrupted\n"


def _live_processes_in_group(group: int) -> list[int]:
    """Processes of process group `group` that still run (zombies left for a lazy init to reap do not count)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            live.append(int(stat.parent.name))
    return live


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from /proc (Linux)")
def test_sigterm_stops_a_run_as_ctrl_c_does_keeping_finished_runs_and_stopping_workers(write_suite, store):
    command = [sys.executable, "-m", "harness", "run", str(write_suite(SLOW_SUITE)), "--store", str(store),
               "--jobs", "2", "--plugin", TOY_PLUGIN]
    coordinator = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True, cwd=REPO)
    deadline = time.monotonic() + 60
    while _stored(store) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    coordinator.send_signal(signal.SIGTERM)
    _, err = coordinator.communicate(timeout=30)
    assert coordinator.returncode == INTERRUPTED_EXIT
    assert RESUME_HINT in err and "Traceback" not in err
    with Store(store) as db:
        assert db.integrity_ok() and 2 <= db.count() < 12
    deadline = time.monotonic() + 10
    while _live_processes_in_group(coordinator.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _live_processes_in_group(coordinator.pid), "a worker outlived its coordinator"
