"""`harness compare` on pytest-benchmark JSON: both layouts, the ratio rule, the test over rounds, the
fallback to medians, hardware that differs, and the user errors."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import build_parser, main
from harness.comparison.benchmark_files import load_benchmark_file
from harness.comparison.benchmark_gate import DEFAULT_MAX_RATIO
from harness.comparison.benchmark_hardware import benchmark_fingerprint, benchmark_hardware
from tests.harness.benchmark_json import MACHINE, benchmark_document, write_benchmarks

STEADY = [1.00, 1.02, 0.98, 1.01, 0.99]
TINY_BENCHMARK = "def test_sum(benchmark):\n    benchmark(sum, range(100))\n"


def cells(out: str) -> dict[str, dict]:
    """Benchmark name -> its cell, from `--format json` output."""
    return {cell["method"]: cell for cell in json.loads(out)["cells"]}


def compare(cli, base: str, cand: str, *options: str) -> tuple[int, dict[str, dict], str]:
    code, out, err = cli("compare", base, cand, "--format", "json", *options, plugin=False)
    return code, cells(out) if code in (0, 1) else {}, err


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory) -> Path:
    """A folder where pytest-benchmark itself ran a benchmark twice, saving both runs and a --benchmark-json file."""
    folder = tmp_path_factory.mktemp("pytest_benchmark")
    (folder / "test_tiny.py").write_text(TINY_BENCHMARK)
    for name in ("first", "second"):
        subprocess.run([sys.executable, "-m", "pytest", "test_tiny.py", "-q", "-p", "no:cacheprovider",
                        "--rootdir", str(folder), "--benchmark-only", "--benchmark-save-data",
                        "--benchmark-max-time=0.02", f"--benchmark-save={name}", f"--benchmark-json={name}.json"],
                       cwd=folder, check=True, capture_output=True)
    return folder


def test_json_file_of_pytest_benchmark_gives_each_median_round_times_and_machine(saved_runs):
    timings = load_benchmark_file(str(saved_runs / "first.json"))
    (timing,) = timings.timings
    assert timing.fullname == "test_tiny.py::test_sum"
    assert len(timing.rounds) >= 2 and min(timing.rounds) <= timing.median <= max(timing.rounds)
    hardware = benchmark_hardware(timings.machine_info)
    assert hardware["machine"] == platform.machine() and hardware["cores"] == os.cpu_count()
    assert hardware["python"] == f"CPython {'.'.join(platform.python_version_tuple()[:2])}"


def test_benchmarks_folder_gives_its_newest_run_and_folder_at_id_a_named_one(cli, saved_runs):
    folder = str(saved_runs / ".benchmarks")
    code, out, _ = cli("compare", f"{folder}@0001", folder, "--max-ratio", "1000", plugin=False)
    assert code == 0, out
    assert "0001_first.json" in out.splitlines()[0] and "0002_second.json" in out.splitlines()[1]
    assert "1 unchanged" in out


def test_newest_saved_run_is_the_latest_stamped_across_machine_folders(tmp_path):
    write_benchmarks(tmp_path / "Linux-CPython-3.11-64bit" / "0001_later.json", {"test_a": STEADY},
                     saved_at="2026-02-01T00:00:00+00:00")
    write_benchmarks(tmp_path / "Linux-CPython-3.12-64bit" / "0007_earlier.json", {"test_a": STEADY},
                     saved_at="2026-01-01T00:00:00+00:00")
    assert load_benchmark_file(str(tmp_path)).source.endswith("0001_later.json")


@pytest.mark.parametrize(("run_id", "message"), [("0009", "'0009' matches no saved run"),
                                                 ("0001", "'0001' matches several saved runs")])
def test_saved_run_id_must_name_exactly_one_run(cli, tmp_path, run_id, message):
    for machine in ("Linux-CPython-3.11-64bit", "Linux-CPython-3.12-64bit"):
        write_benchmarks(tmp_path / ".benchmarks" / machine / "0001_run.json", {"test_a": STEADY})
    code, _, err = cli("compare", f"{tmp_path}/.benchmarks@{run_id}", f"{tmp_path}/.benchmarks", plugin=False)
    assert code == 3 and message in err and "Linux-CPython-3.12-64bit/0001_run.json" in err


def test_identical_files_are_unchanged(cli, tmp_path):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY, "test_b": STEADY})
    code, found, _ = compare(cli, base, base)
    assert code == 0 and {cell["status"] for cell in found.values()} == {"unchanged"}


@pytest.mark.parametrize(("factor", "status", "code"), [(1.3, "unchanged", 0), (1 / 1.3, "unchanged", 0),
                                                        (3.0, "regressed", 1), (1 / 3.0, "improved", 0)])
def test_median_time_beyond_max_ratio_is_a_regression_or_improvement(cli, tmp_path, factor, status, code):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": [t * factor for t in reversed(STEADY)]})
    found_code, found, _ = compare(cli, base, cand, "--max-ratio", "2")
    assert (found_code, found["test_a"]["status"]) == (code, status)
    assert found["test_a"]["tolerance"] == "max_ratio 2" and f"median x{factor:.2f}" in found["test_a"]["reason"]


def test_slowdown_of_every_round_is_significant_by_welch_t_on_log_times(cli, tmp_path):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": [t * 3 for t in STEADY[:3]]})  # fewer rounds: unpaired
    _, found, _ = compare(cli, base, cand)
    assert found["test_a"]["test"] == "Welch t (log)" and found["test_a"]["p_value"] < 0.001


def test_median_beyond_max_ratio_within_round_noise_is_insignificant(cli, tmp_path):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": [1.0, 0.3, 3.0, 0.5, 2.0]})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": [3.5, 0.8, 9.0, 2.5, 0.4]})  # median x2.5
    code, found, _ = compare(cli, base, cand, "--max-ratio", "2")
    assert code == 0 and found["test_a"]["status"] == "insignificant", found


def test_one_slow_round_moves_the_mean_not_the_median(cli, tmp_path):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": [*STEADY[:4], 20.0]})  # mean x4.8
    code, found, _ = compare(cli, base, cand, "--max-ratio", "2")
    assert code == 0 and found["test_a"]["status"] == "unchanged"


@pytest.mark.parametrize("without", ["base", "candidate"])
def test_without_round_times_medians_are_judged_on_the_ratio_alone_and_the_note_says_why(cli, tmp_path, without):
    slow = [t * 3 for t in STEADY]
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY}, save_data=without != "base")
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": slow}, save_data=without != "candidate")
    code, found, _ = compare(cli, base, cand)
    cell = found["test_a"]
    assert code == 1 and cell["status"] == "regressed" and cell["test"] == "none (n=1: tolerance alone)"
    assert f"no round times in {without} (--benchmark-save-data): judged on max_ratio alone" in cell["reason"]
    assert (cell["base"]["mean"], cell["base"]["n"]) == (1.0, 1)  # the median, not the rounds' mean


def test_other_hardware_is_reported_not_gated_and_passes(cli, tmp_path):
    bigger = {**MACHINE, "cpu": {**MACHINE["cpu"], "count": 4, "flags": [*MACHINE["cpu"]["flags"], "avx512f"]}}
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": [t * 3 for t in STEADY]}, machine_info=bigger)
    code, found, _ = compare(cli, base, cand)
    assert code == 0 and found["test_a"]["status"] == "incomparable"
    assert found["test_a"]["reason"] == "not gated: hardware differs: cores 2 vs 4; vector_extensions none vs avx512f"
    assert cli("compare", base, cand, "--strict", plugin=False)[0] == 1  # --strict fails on what it cannot judge


def test_fingerprint_ignores_clock_hostname_and_python_patch_release():
    same = {**MACHINE, "node": "ci-runner-7", "python_version": "3.11.9",
            "cpu": {**MACHINE["cpu"], "hz_actual_friendly": "3.1000 GHz", "flags": ["sse4_2", "avx2", "fma", "avx"]}}
    assert benchmark_fingerprint(same) == benchmark_fingerprint(MACHINE)
    assert benchmark_fingerprint({**MACHINE, "python_version": "3.12.1"}) != benchmark_fingerprint(MACHINE)


def test_benchmark_in_one_file_only_is_missing_or_new_and_a_missing_one_fails_the_gate(cli, tmp_path):
    base = write_benchmarks(tmp_path / "base.json", {"test_a": STEADY, "test_gone": STEADY})
    cand = write_benchmarks(tmp_path / "cand.json", {"test_a": STEADY, "test_added": STEADY})
    code, found, _ = compare(cli, base, cand)
    assert code == 1  # a benchmark dropped from the candidate's run would hide its regression
    assert {name: cell["status"] for name, cell in found.items()} == {
        "test_a": "unchanged", "test_gone": "missing", "test_added": "new"}


def _without(key: str) -> dict:
    document = benchmark_document({"test_a": STEADY})
    if key == "median":
        del document["benchmarks"][0]["stats"]["median"]
    else:
        del document[key]
    return document


@pytest.mark.parametrize(("content", "message"), [
    ("", "is empty"),
    ("{not json", "is not a pytest-benchmark file: not JSON"),
    ("[1, 2]", "is not a pytest-benchmark file: it holds list, not a JSON object"),
    (json.dumps(_without("machine_info")), "is not a pytest-benchmark file: it has no 'machine_info' key"),
    (json.dumps(_without("benchmarks")), "is not a pytest-benchmark file: it has no 'benchmarks' key"),
    (json.dumps(_without("median")), "it has no 'benchmarks[0].stats.median' key"),
    (json.dumps({**benchmark_document({}), "benchmarks": []}), "holds no benchmarks"),
    (json.dumps({**benchmark_document({"test_a": STEADY}), "benchmarks": [benchmark_document({"test_a": STEADY})[
        "benchmarks"][0]] * 2}), "holds benchmark(s) benchmarks/test_bench_engine.py::test_a more than once"),
])
def test_a_file_that_is_no_pytest_benchmark_json_is_a_user_error(cli, tmp_path, content, message):
    broken = tmp_path / "broken.json"
    broken.write_text(content)
    good = write_benchmarks(tmp_path / "good.json", {"test_a": STEADY})
    code, _, err = cli("compare", good, str(broken), plugin=False)
    assert code == 3 and message in err and "Traceback" not in err


@pytest.mark.parametrize(("arguments", "message"), [
    (["{tmp}/absent.json", "{good}"], "absent.json does not exist"),
    (["{good}", "{tmp}/results.csv"], "names pytest-benchmark JSON but"),
    (["{good}", "{good}", "--suite", "suite.yaml"], "--suite and --suite-name select runs of a suite"),
    (["{tmp}/a.csv", "{tmp}/b.csv", "--max-ratio", "2"], "--max-ratio applies to pytest-benchmark files"),
    (["{tmp}/empty", "{good}"], "holds no saved pytest-benchmark runs"),
])
def test_mixing_sides_or_options_is_a_user_error(cli, tmp_path, arguments, message):
    good = write_benchmarks(tmp_path / "good.json", {"test_a": STEADY})
    (tmp_path / "empty").mkdir()
    (tmp_path / "results.csv").write_text("suite,method,dataset,seed,status\n")
    code, _, err = cli("compare", *(a.format(tmp=tmp_path, good=good) for a in arguments), plugin=False)
    assert code == 3 and message in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["0.5", "two"])
def test_max_ratio_below_1_is_refused_when_parsed(tmp_path, capsys, value):
    good = write_benchmarks(tmp_path / "good.json", {"test_a": STEADY})
    with pytest.raises(SystemExit) as stop:
        main(["compare", good, good, "--max-ratio", value])
    assert stop.value.code == 3 and "argument --max-ratio" in capsys.readouterr().err


def test_baseline_file_is_read_as_committed_at_a_git_ref(cli, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    write_benchmarks(repo / "benchmarks" / "baseline" / "engine.json", {"test_a": STEADY})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "baseline"], check=True)
    slow = write_benchmarks(tmp_path / "slow.json", {"test_a": [t * 3 for t in STEADY]})
    monkeypatch.chdir(repo)
    code, found, _ = compare(cli, "HEAD:benchmarks/baseline/engine.json", slow)
    assert code == 1 and found["test_a"]["status"] == "regressed"


def test_max_ratio_help_states_the_default():
    compare_parser = build_parser()._subparsers._group_actions[0].choices["compare"]
    (option,) = [a for a in compare_parser._actions if a.dest == "max_ratio"]
    assert f"(default {DEFAULT_MAX_RATIO:g})" in option.help
