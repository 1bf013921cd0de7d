"""The Slurm executor: its sbatch requests (through a fake `sbatch`), its restart logic, and
whole suites through submitit's local cluster and through a real single-node Slurm."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.executors.base import ExecutionSettings
from harness.run_folders import records_folder
from harness.registry import executors, load_plugin_file
from harness.runner import plan_suite
from harness.store import Store
from harness.run_resources import Resources
from tests.conftest import TOY_PLUGIN, interruptible
from tests.extras import require_extra
from tests.scaleout.equivalence import MIXED, MIXED_STATUSES, QUICKSTART, comparable_records
from tests.scaleout.slurm_cluster import PARTITION, slurm_cluster  # noqa: F401 - a fixture

require_extra("slurm")
import submitit  # noqa: E402

from harness.executors.slurm import SlurmExecutor  # noqa: E402 - needs submitit
from harness.executors.slurm_journal import SubmissionJournal  # noqa: E402
from harness.executors.slurm_params import slurm_parameters, status_of_state  # noqa: E402

pytestmark = pytest.mark.slurm

TWO_REQUESTS = """\
schema_version: 1
suite: requests
task: toy.sign
defaults: {seeds: [0, 1], timeout: 20s}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods:
  small: {impl: threshold, params: {t: [0.0, 0.5]}}
  big: {impl: threshold, params: {t: 1.0}, resources: {gpus: 1, cpus: 4, mem: 8G, time: 2h, partition: gpu}}
"""

SLOW = """\
schema_version: 1
suite: slow
task: toy.sign
defaults: {seeds: [0, 1, 2, 3], timeout: 60s}
datasets: {easy: {loader: numbers}}
metrics: [accuracy]
methods: {nap: {impl: slow, params: {seconds: 2.0}}}
"""


class SubmititLocalExecutor(SlurmExecutor):
    """The Slurm executor on submitit's local cluster: a process per job, no Slurm needed."""

    cluster = "local"
    job_class = submitit.LocalJob


@pytest.fixture(scope="module", autouse=True)
def submitit_local_executor():
    if "submitit-local" not in executors.names():
        executors.add("submitit-local", SubmititLocalExecutor, "the Slurm executor on submitit's local cluster")


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    """`srun`, `sbatch` and `sacct` stand-ins: sbatch keeps each script and answers job ids 424200, 424201, ...;
    sacct prints the file `sacct.txt`. A fresh submitit watcher keeps these ids out of other tests."""
    bin_dir, scripts = tmp_path / "bin", tmp_path / "sbatch-scripts"
    bin_dir.mkdir()
    scripts.mkdir()
    fakes = {
        "srun": "exit 0",
        "sbatch": f'n=$(ls "{scripts}" | wc -l); cp "$1" "{scripts}/$n.sh"; echo "Submitted batch job $((424200 + n))"',
        "sacct": f'cat "{tmp_path}/sacct.txt"',
    }
    for name, body in fakes.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setattr(submitit.SlurmJob, "watcher", type(submitit.SlurmJob.watcher)(delay_s=600))
    return scripts


def _specs(write_suite, text):
    load_plugin_file(TOY_PLUGIN)
    return plan_suite(write_suite(text))[1]


def _submit_all(specs, artifacts: Path) -> list:
    """Submit `specs` with a fresh coordinator and return its `started` events (all come before any result)."""
    executor = SlurmExecutor(ExecutionSettings(artifacts=artifacts, environment={}, slurm_partition="cpu",
                                               slurm_max_concurrent=2))
    for spec in specs:
        executor.submit(spec)
    events = executor.events()
    return [next(events) for _ in specs]


def test_resources_map_to_submitit_parameters():
    assert slurm_parameters(Resources(), 20, None) == {"timeout_min": 2, "cpus_per_task": 1}
    assert slurm_parameters(Resources(), 600, "cpu") == {"timeout_min": 11, "cpus_per_task": 1,
                                                         "slurm_partition": "cpu"}
    big = Resources(gpus=2, cpus=8, mem="512M", time="90m", partition="gpu")
    assert slurm_parameters(big, 20, "cpu") == {"timeout_min": 90, "cpus_per_task": 8, "gpus_per_node": 2,
                                                "mem_gb": 0.5, "slurm_partition": "gpu"}
    assert [status_of_state(s) for s in ("TIMEOUT", "OUT_OF_MEMORY", "CANCELLED by 0", "NODE_FAIL", "")] == [
        "timeout", "oom", "crashed", "crashed", "crashed"]


def test_sbatch_scripts_request_each_methods_resources_as_capped_arrays(write_suite, fake_slurm, tmp_path):
    specs = _specs(write_suite, TWO_REQUESTS)
    assert len(_submit_all(specs, tmp_path / "runs")) == 6
    small, big = (fake_slurm / "0.sh").read_text(), (fake_slurm / "1.sh").read_text()
    for line in ("--array=0-3%2", "--partition=cpu", "--cpus-per-task=1", "--time=2", "--job-name=harness-requests",
                 "--signal=USR2@0"):
        assert f"#SBATCH {line}\n" in small
    assert "--gpus-per-node" not in small and "--mem" not in small
    for line in ("--array=0-1%2", "--partition=gpu", "--gpus-per-node=1", "--cpus-per-task=4", "--mem=8GB",
                 "--time=120"):
        assert f"#SBATCH {line}\n" in big
    slurm_folder = tmp_path / "runs" / "requests" / "slurm"
    assert f"#SBATCH --output={slurm_folder}/%A_%a/%A_%a_0_log.out\n" in small
    assert "export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}\n" in small
    journal = json.loads((slurm_folder / "submitted.json").read_text())
    assert sorted(entry["job_id"] for entry in journal.values()) == [
        "424200_0", "424200_1", "424200_2", "424200_3", "424201_0", "424201_1"]


def test_a_restarted_coordinator_reattaches_queued_jobs_and_resubmits_ended_ones(write_suite, fake_slurm, tmp_path):
    specs = _specs(write_suite, TWO_REQUESTS)
    _submit_all(specs, tmp_path / "runs")
    states = [f"424200_{i}|{'PENDING' if i else 'RUNNING'}|vm" for i in range(4)] + [
        "424201_0|NODE_FAIL|vm", "424201_1|CANCELLED by 0|vm"]
    (tmp_path / "sacct.txt").write_text("\n".join(["JobID|State|NodeList", *states]) + "\n")

    assert {e.spec.run_key for e in _submit_all(specs, tmp_path / "runs")} == {s.run_key for s in specs}
    assert sorted(p.name for p in fake_slurm.iterdir()) == ["0.sh", "1.sh", "2.sh"]
    assert "#SBATCH --array=0-1%2\n" in (fake_slurm / "2.sh").read_text()
    journal = SubmissionJournal(tmp_path / "runs" / "requests" / "slurm" / "submitted.json")
    assert sorted(journal.job_id(s.run_key, "slurm") for s in specs) == [
        "424200_0", "424200_1", "424200_2", "424200_3", "424202_0", "424202_1"]
    assert journal.job_id(specs[0].run_key, "local") is None  # a pid of another kind of cluster is no Slurm job


def test_a_submission_slurm_refuses_is_a_user_error_with_slurms_reason(cli, write_suite, fake_slurm, tmp_path):
    (fake_slurm.parent / "bin" / "sbatch").write_text(
        "#!/bin/sh\necho 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1\n")
    code, _, err = cli("run", str(write_suite(TWO_REQUESTS)), "--store", str(tmp_path / "s.sqlite"),
                       "--executor", "slurm")
    assert code == 3
    assert "invalid partition specified: gpu" in err and "--slurm-partition" in err


def test_an_unreadable_journal_means_submitting_again(tmp_path):
    path = tmp_path / "submitted.json"
    path.write_text("{not json")
    journal = SubmissionJournal(path)
    assert journal.job_id("k", "slurm") is None
    journal.add({"k": "7_0"}, "slurm")
    assert SubmissionJournal(path).job_id("k", "slurm") == "7_0"


def test_submitit_local_cluster_gives_the_local_executors_results(cli, write_suite, tmp_path):
    suite = str(write_suite(MIXED))
    ours, local = tmp_path / "submitit.sqlite", tmp_path / "local.sqlite"
    assert cli("run", suite, "--store", str(ours), "--executor", "submitit-local")[0] == 2
    assert cli("run", suite, "--store", str(local), "--jobs", "2")[0] == 2
    assert comparable_records(ours) == comparable_records(local)
    assert {r["method"]: r["status"] for r in Store(ours).records()} == MIXED_STATUSES
    crashed = [r for r in Store(ours).records() if r["status"] == "crashed"]
    assert all("ended (FINISHED) without a record" in r["error"] for r in crashed)
    assert all((tmp_path / r["log"]).is_file() for r in Store(ours).records())


@pytest.mark.slow
@pytest.mark.usefixtures("slurm_cluster")
def test_real_slurm_gives_the_local_executors_results_and_retries_lost_jobs(cli, write_suite, tmp_path):
    suite = str(write_suite(MIXED))
    ours, local = tmp_path / "slurm.sqlite", tmp_path / "local.sqlite"
    assert cli("run", suite, "--store", str(ours), "--executor", "slurm", "--retries", "1",
               "--slurm-partition", PARTITION)[0] == 2
    assert cli("run", suite, "--store", str(local), "--jobs", "2")[0] == 2
    assert comparable_records(ours) == comparable_records(local)
    records = list(Store(ours).records())
    assert {r["method"]: r["status"] for r in records} == MIXED_STATUSES
    slurm_folder = tmp_path / "slurm-runs" / "mixed" / "slurm"
    journal = SubmissionJournal(slurm_folder / "submitted.json")
    job_ids = {r["run_key"]: journal.job_id(r["run_key"], "slurm") for r in records}
    assert all(list((slurm_folder / job_id).glob("*_log.out")) for job_id in job_ids.values()), \
        "each job's output lies in the run folder"
    arrays = {r["status"]: job_ids[r["run_key"]].partition("_")[0] for r in records}
    # One array for all runs (they ask for the same resources); the killed runs were lost and submitted again.
    assert len({job_ids[r["run_key"]].partition("_")[0] for r in records if r["status"] != "crashed"}) == 1
    assert arrays["crashed"] != arrays["ok"]
    assert all("ended (FAILED) without a record" in r["error"] for r in records if r["status"] == "crashed")


def _coordinator_with_submitted_jobs(suite: str, store: Path) -> tuple[subprocess.Popen, Path]:
    """`harness run --executor slurm` in a subprocess, once it has submitted its jobs."""
    journal = store.parent / f"{store.stem}-runs" / "slow" / "slurm" / "submitted.json"
    command = [sys.executable, "-m", "harness.cli", "run", suite, "--store", str(store), "--executor", "slurm",
               "--slurm-max-concurrent", "2", "--plugin", TOY_PLUGIN]
    coordinator = interruptible(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not journal.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return coordinator, journal


@pytest.mark.slow
@pytest.mark.usefixtures("slurm_cluster")
def test_real_slurm_coordinator_restarted_after_sigkill_reattaches_its_jobs(cli, write_suite, tmp_path):
    suite, store = str(write_suite(SLOW)), tmp_path / "slow.sqlite"
    coordinator, journal = _coordinator_with_submitted_jobs(suite, store)
    coordinator.send_signal(signal.SIGKILL)
    coordinator.wait()
    submitted = json.loads(journal.read_text())

    code, out, err = cli("run", suite, "--store", str(store), "--executor", "slurm")
    assert code == 0 and Store(store).count() == 4, (out, err, [r["error"] for r in Store(store).records()])
    executed = int(re.search(r"(\d+) runs executed", out).group(1))
    again = {key for key, entry in json.loads(journal.read_text()).items() if entry != submitted[key]}
    # each execution leaves its own predictions file (record files are removed once stored)
    executions = Counter(p.name.split(".")[0] for p in (tmp_path / "slow-runs" / "slow" / "predictions").glob("*"))
    # Queued and running jobs were re-attached; only a job that ended between the rerun's ingest of the
    # run folder and its look at the journal is executed a second time (and its later record wins).
    assert executed - len(again) >= 1
    assert executions == {key: 2 if key in again else 1 for key in submitted}
    assert not list(records_folder(tmp_path / "slow-runs", "slow").glob("*.json"))


@pytest.mark.slow
@pytest.mark.usefixtures("slurm_cluster")
def test_real_slurm_ctrl_c_cancels_the_queued_and_running_jobs(write_suite, tmp_path):
    coordinator, _ = _coordinator_with_submitted_jobs(str(write_suite(SLOW)), tmp_path / "slow.sqlite")
    coordinator.send_signal(signal.SIGINT)
    _, err = coordinator.communicate(timeout=30)
    assert coordinator.returncode == 130 and "Traceback" not in err
    deadline = time.monotonic() + 20
    while subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip():
        assert time.monotonic() < deadline, "jobs are still queued or running after Ctrl-C"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.usefixtures("slurm_cluster")
def test_quick_suite_gives_the_same_results_under_real_slurm_and_local(tmp_path, capsys):
    from harness.cli import main

    assert main(["run", str(QUICKSTART), "--store", str(tmp_path / "slurm.sqlite"), "--executor", "slurm",
                 "--slurm-partition", PARTITION]) == 0
    assert main(["run", str(QUICKSTART), "--store", str(tmp_path / "local.sqlite"), "--jobs", "2"]) == 0
    capsys.readouterr()
    slurm_runs = comparable_records(tmp_path / "slurm.sqlite")
    assert len(slurm_runs) == 30 and slurm_runs == comparable_records(tmp_path / "local.sqlite")
