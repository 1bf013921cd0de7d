"""Names, data paths and sizes that once ended in a traceback, a hang or gigabytes of memory (issue 52): each is
now exit 3 naming the file, line or argument and what to do, or it works."""
from __future__ import annotations

import os
import signal
import time

import pytest

from harness.run_folders import records_folder
from harness.store import Store
from tests.conftest import TOY_SUITE

FILE_LOADER = "easy: {loader: numbers_file, args: {path: PATH}}"


def _suite(old: str = "", new: str = "", extra: str = "") -> str:
    assert old in TOY_SUITE
    return TOY_SUITE.replace(old, new) + extra


def _reading(path: str) -> str:
    return _suite("easy: {loader: numbers, args: {shift: 1.0}}", FILE_LOADER.replace("PATH", path))


def _refused(cli, args: tuple[str, ...], *messages: str) -> str:
    code, _, err = cli(*args)
    assert code == 3, err
    assert "Traceback" not in err
    for message in messages:
        assert message in " ".join(err.split()), err
    return err


@pytest.fixture
def no_hang():
    """A test that would block (in `open` of a fifo) fails after 30 s instead: the handler's exception ends it."""
    def expired(*_):  # noqa: ANN002
        raise TimeoutError("blocked for 30 s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


# Names ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("length", [300, 5000])
def test_a_suite_name_too_long_for_a_file_name_runs_in_a_shortened_folder(cli, write_suite, store, length):
    name = "s" * length
    code, out, err = cli("run", str(write_suite(_suite("suite: toy", f"suite: {name}"))), "--store", str(store))
    assert code == 0 and "4 runs executed (0 failed)" in out, err
    folder = records_folder(Store(store).artifacts_dir, name).parent
    assert folder.is_dir() and folder.name.startswith("s" * 100) and len(folder.name) <= 120
    assert records_folder(Store(store).artifacts_dir, "toy").parent.name == "toy"  # a usual name is kept


@pytest.mark.parametrize("command", ["validate", "plan"])
@pytest.mark.parametrize(("old", "new", "line"), [
    ("  thr:", '  "thr\\ud800":', 9),
    ("suite: toy", 'suite: toy\ndescription: "a \\udfff b"', 3),
])
def test_a_lone_surrogate_is_refused_with_its_line(cli, write_suite, store, command, old, new, line):
    path = write_suite(_suite(old, new))
    _refused(cli, (command, str(path), "--store", str(store)) if command == "plan" else (command, str(path)),
             f"{path}:{line}:", "the text holds the lone surrogate")


# Data paths ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_home_folder_that_does_not_exist_is_a_data_error(cli, write_suite, store, command):
    path = write_suite(_reading("~no_such_user_52/x.txt"))
    args = (command, str(path)) + (("--store", str(store)) if command == "plan" else ())
    _refused(cli, args, f"{path}:6:", "datasets.easy.args.path:", "'~no_such_user_52/x.txt' starts with '~'")


def test_a_folder_where_the_loader_reads_a_file_is_a_data_error(cli, write_suite, store, tmp_path):
    (tmp_path / "numbers").mkdir()
    _refused(cli, ("run", str(write_suite(_reading(str(tmp_path / "numbers")))), "--store", str(store)),
             "datasets.easy.args.path:", f"path {tmp_path / 'numbers'} is a folder, but loader 'toy.numbers_file' "
                                         "reads a file")


@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_fifo_as_a_data_file_is_refused_without_blocking(cli, write_suite, store, tmp_path, no_hang, command):
    os.mkfifo(tmp_path / "numbers.txt")
    _refused(cli, (command, str(write_suite(_reading(str(tmp_path / "numbers.txt")))), "--store", str(store)),
             "datasets.easy.args.path:", "is a fifo, not a data file or folder")


@pytest.mark.parametrize("written", ["../outside.txt", "inside/../../outside.txt", "link.txt"])
def test_a_relative_path_may_not_lead_out_of_the_data_root(cli, write_suite, store, tmp_path, written):
    root = tmp_path / "root"
    (root / "inside").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("1\n-1\n")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    path = write_suite(_reading(written))
    _refused(cli, ("plan", str(path), "--store", str(store), "--data-root", str(root)),
             f"{path}:6:", "datasets.easy.args.path:", f"'{written}' leads out of the data root {root}",
             "write the absolute path")


def test_an_absolute_path_or_a_link_within_the_data_root_is_taken_as_written(cli, write_suite, store, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("1\n-1\n2\n")
    (root / "numbers.txt").write_text("1\n-1\n2\n")
    (root / "link.txt").symlink_to(root / "numbers.txt")
    for written in (str(tmp_path / "outside.txt"), "link.txt", "numbers.txt"):
        code, out, err = cli("plan", str(write_suite(_reading(written))), "--store", str(store),
                             "--data-root", str(root))
        assert code == 0 and "4 runs, 0 stored" in out, err


def test_a_loaders_error_never_quotes_the_data_file(cli, write_suite, store, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:secret-first-line\n")
    err = _refused(cli, ("run", str(write_suite(_reading(str(secret)))), "--store", str(store)),
                   "datasets.easy.args:", "loader 'toy.numbers_file' raised ValueError",
                   "its message is not shown, as it may quote the file")
    assert "secret-first-line" not in err


def test_a_dataset_too_large_for_memory_is_a_data_error_naming_its_arguments(cli, write_suite, store):
    text = _suite("args: {shift: 1.0}", "args: {shift: 1.0, n: 1000000000000}")
    _refused(cli, ("run", str(write_suite(text)), "--store", str(store)),
             "datasets.easy.args:", "dataset 'easy' does not fit in memory", "n=1000000000000",
             "Unable to allocate")


# Sizes ---------------------------------------------------------------------------------------------------------

def _huge_plan() -> str:
    """A 9x10^7-run suite in a few KB: 9 methods of 10,000 grid points, 10 datasets, 100 seeds."""
    values = list(range(100))
    datasets = "".join(f"  d{i}: {{loader: numbers, args: {{shift: {i}}}}}\n" for i in range(10))
    methods = "".join(f"  m{i}: {{impl: threshold, params: {{t: {values}, noise: {values}}}}}\n" for i in range(9))
    return (f"schema_version: 1\nsuite: huge\ntask: toy.sign\ndefaults: {{seeds: {list(range(100))}}}\n"
            f"datasets:\n{datasets}metrics: [accuracy]\nmethods:\n{methods}")


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_suite_planning_90_million_runs_is_refused_at_once(cli, write_suite, store, command):
    path = write_suite(_huge_plan())
    args = (command, str(path)) + (("--store", str(store)) if command == "plan" else ())
    started = time.monotonic()
    _refused(cli, args, f"{path}:17:", "the suite plans 90,000,000 runs", "over the cap of 100,000",
             "HARNESS_MAX_RUNS=90000000")
    assert time.monotonic() - started < 5


def test_the_run_cap_is_set_by_harness_max_runs(cli, write_suite, monkeypatch):
    path = write_suite()
    monkeypatch.setenv("HARNESS_MAX_RUNS", "3")
    _refused(cli, ("validate", str(path)), "the suite plans 4 runs", "over the cap of 3")
    monkeypatch.setenv("HARNESS_MAX_RUNS", "4")
    assert cli("validate", str(path))[0] == 0
    monkeypatch.setenv("HARNESS_MAX_RUNS", "many")
    _refused(cli, ("validate", str(path)), "error: $HARNESS_MAX_RUNS is 'many', not a whole number of at least 1")


def test_a_suite_file_over_the_size_cap_is_refused_before_it_is_parsed(cli, write_suite):
    path = write_suite(_suite(extra=f"description: {'x' * 2**20}\n"))
    started = time.monotonic()
    _refused(cli, ("validate", str(path)), f"{path}: the suite file is too large to read: it holds 1,048,",
             "over the cap of 1,048,576", "HARNESS_MAX_SUITE_BYTES=<bytes>")
    assert time.monotonic() - started < 1


def test_the_suite_size_cap_is_set_by_harness_max_suite_bytes(cli, write_suite, monkeypatch):
    path = write_suite()
    monkeypatch.setenv("HARNESS_MAX_SUITE_BYTES", "100")
    _refused(cli, ("validate", str(path)), "over the cap of 100")
    monkeypatch.setenv("HARNESS_MAX_SUITE_BYTES", str(path.stat().st_size))
    assert cli("validate", str(path))[0] == 0


def test_a_fifo_as_a_suite_file_is_refused_without_blocking(cli, tmp_path, no_hang):
    os.mkfifo(tmp_path / "suite.yaml")
    _refused(cli, ("validate", str(tmp_path / "suite.yaml")), "cannot read the suite file: it is a fifo")


# Workers -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("cpus", "workers", "note"), [(1, 1, "note: --jobs 10000 lowered to 1"), (16, 2, "")])
def test_jobs_is_capped_by_the_cpus_and_the_queued_runs(cli, write_suite, store, monkeypatch, cpus, workers, note):
    import harness.runner

    started = []
    make = harness.runner._executor

    def recording(*args):  # noqa: ANN002
        executor = make(*args)
        started.append(executor.settings.jobs)
        return executor

    monkeypatch.setattr(harness.runner, "_executor", recording)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: set(range(cpus)), raising=False)
    two_runs = write_suite(_suite("seeds: [0, 1]", "seeds: [0]"))
    code, out, err = cli("run", str(two_runs), "--store", str(store), "--jobs", "10000")
    assert code == 0 and "2 runs executed (0 failed)" in out, err
    assert started == [workers] and note in err and ("note:" in err) == bool(note)
