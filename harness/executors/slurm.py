"""Runs as Slurm job arrays through submitit: one array per distinct resource request.

Runs that ask for the same partition, GPUs, CPUs, memory and time go into one array
whose concurrently running tasks are capped by `--slurm-max-concurrent` (per array, as
Slurm's `--array=0-N%cap` is); a method's
`resources:` in the suite override the defaults for its runs. Each task executes one
run, writes its record file and returns the record. Submitit's files and each job's
stdout/stderr live under `<run folder>/<suite>/slurm/<job id>/`, beside the runs' logs.

The coordinator may die and be restarted: finished runs are ingested from their record
files, and runs whose jobs are still queued or running are re-attached through
`slurm/submitted.json` rather than submitted again. A job that ends without a record
(time limit, out of memory, lost node, killed) becomes a timeout/oom/crashed record with
the tail of its stderr; a lost one is first re-submitted up to `--retries` times.

Job states come from `sacct`, as submitit reads them, so the cluster needs accounting
(slurmdbd); without it a job that dies without a record is never seen to end.
"""
from __future__ import annotations

import faulthandler
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from harness.errors import HarnessError
from harness.executors.base import (ExecutionSettings, Executor, RunEvent, RunFinished, RunStarted, execute_remote,
                                    failure_record)
from harness.executors.slurm_journal import SubmissionJournal
from harness.executors.slurm_params import WARNING_SIGNAL_DELAY_S, slurm_parameters, status_of_state, thread_setup
from harness.run_spec import RunSpec
from harness.record import RunRecord, Status, utc_now
from harness.run_folders import ExecutionFiles, slurm_folder

try:
    import submitit
    from submitit.core.utils import FailedJobError, UncompletedJobError
except ImportError as exc:
    raise HarnessError("the slurm executor needs submitit",
                       hint="Install the extra: pip install 'iclr26-harness[slurm]'.") from exc

_POLL_S = 1.0
_STDERR_TAIL_LINES = 20


def run_array_task(spec: RunSpec, settings: ExecutionSettings) -> RunRecord:
    """The body of one array task: the same `execute` as every other executor.

    Submitit turns the signal Slurm sends ahead of the time limit (asked for as late as it
    can come: `WARNING_SIGNAL_DELAY_S`) into an exception inside the run, which would record
    a timeout as `failed`; ignoring it lets the time limit end the job, which the coordinator
    records as `timeout`.
    """
    signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    faulthandler.enable()  # a segfault's stack lands in the run's log, as with a local worker
    return execute_remote(spec, settings)


@dataclass
class _Tracked:
    spec: RunSpec
    job: Any  # a submitit Job
    started_at: str


class SlurmExecutor(Executor):
    cluster: ClassVar[str] = "slurm"                 # submitit's name for the backend
    job_class: ClassVar[type] = submitit.SlurmJob    # how a journaled job id is re-attached
    queues_remotely = True                           # job arrays are submitted once, as `events()` starts

    def __init__(self, settings: ExecutionSettings) -> None:
        super().__init__(settings)
        self._queue: list[RunSpec] = []
        self._jobs: dict[str, _Tracked] = {}
        self._resubmitted: dict[str, int] = {}  # run key -> times its job was lost and submitted again
        self._journals: dict[str, SubmissionJournal] = {}

    def submit(self, spec: RunSpec) -> None:
        self._queue.append(spec)

    def events(self) -> Iterator[RunEvent]:
        """Jobs are left running if the coordinator stops without `cancel()`: a rerun re-attaches."""
        queued, self._queue = self._queue, []
        self._submit(self._reattach(queued))
        for tracked in list(self._jobs.values()):
            yield RunStarted(tracked.spec)
        while self._jobs:
            time.sleep(_POLL_S)
            lost = []
            for run_key, tracked in list(self._jobs.items()):
                if tracked.job.done():
                    del self._jobs[run_key]
                    event = self._finished(tracked)
                    if event is None:
                        lost.append(tracked.spec)
                    else:
                        yield event
            self._submit(lost)

    def cancel(self) -> None:
        self._queue.clear()
        for tracked in self._jobs.values():
            tracked.job.cancel(check=False)
        self._jobs.clear()

    def _folder(self, suite: str) -> Path:
        return slurm_folder(self.settings.artifacts, suite)

    def _journal(self, suite: str) -> SubmissionJournal:
        if suite not in self._journals:
            self._journals[suite] = SubmissionJournal(self._folder(suite) / "submitted.json")
        return self._journals[suite]

    def _reattach(self, specs: list[RunSpec]) -> list[RunSpec]:
        """Track the journaled jobs that are still queued or running; return the runs left to submit.

        All jobs are created before any is asked whether it is done, so submitit's watcher
        asks `sacct` about all of them at once.
        """
        candidates = []
        for spec in specs:
            job_id = self._journal(spec.suite).job_id(spec.run_key, self.cluster)
            if job_id is not None:
                candidates.append((spec, self.job_class(folder=self._folder(spec.suite) / "%j", job_id=job_id)))
        alive = {spec.run_key: (spec, job) for spec, job in candidates if not job.done()}
        for spec, job in alive.values():
            self._jobs[spec.run_key] = _Tracked(spec, job, utc_now())
        return [spec for spec in specs if spec.run_key not in alive]

    def _submit(self, specs: list[RunSpec]) -> None:
        groups: dict[tuple[Any, ...], list[RunSpec]] = {}
        for spec in specs:
            groups.setdefault(self._request(spec), []).append(spec)
        for (suite, threads, *_), group in groups.items():
            self._submit_array(suite, threads, group)

    def _request(self, spec: RunSpec) -> tuple[Any, ...]:
        """Runs that share this key share one job array."""
        parameters = slurm_parameters(spec.resources, spec.timeout, self.settings.slurm_partition)
        return (spec.suite, spec.threads, *sorted(parameters.items()))

    def _submit_array(self, suite: str, threads: int, specs: list[RunSpec]) -> None:
        first = specs[0]
        executor = submitit.AutoExecutor(folder=self._folder(suite) / "%j", cluster=self.cluster)
        executor.update_parameters(
            name=f"harness-{suite}", slurm_array_parallelism=self.settings.slurm_max_concurrent,
            **{f"{self.cluster}_setup": thread_setup(threads)}, slurm_signal_delay_s=WARNING_SIGNAL_DELAY_S,
            **slurm_parameters(first.resources, first.timeout, self.settings.slurm_partition),
        )
        try:
            jobs = executor.map_array(run_array_task, specs, [self.settings] * len(specs))
        except FailedJobError as exc:  # sbatch's own complaint, e.g. an unknown partition
            lines = str(exc).strip().splitlines() or ["no output"]
            raise HarnessError(f"Slurm refused a job array of {len(specs)} runs ({first.method} ...): {lines[-1]}",
                               hint="Check --slurm-partition and the methods' resources in the suite.") from None
        submitted = dict(zip((spec.run_key for spec in specs), jobs, strict=True))
        self._journal(suite).add({run_key: job.job_id for run_key, job in submitted.items()}, self.cluster)
        for spec in specs:
            self._jobs[spec.run_key] = _Tracked(spec, submitted[spec.run_key], utc_now())

    def _finished(self, tracked: _Tracked) -> RunFinished | None:
        """The run's record, or a failure record made from the job's state; None for a lost job to submit again."""
        job = tracked.job
        # COMPLETED without a result file yet: a slow shared filesystem, and `result()` waits for it.
        if job.paths.result_pickle.exists() or job.state == "COMPLETED":
            try:
                # validated: a job a restarted coordinator re-attached may have run an older harness
                return RunFinished(tracked.spec, RunRecord.model_validate(job.result()))
            except UncompletedJobError:  # FailedJobError too: the job function itself raised
                pass  # the job left no record: classified below from its state and stderr
        status = status_of_state(job.state)
        run_key = tracked.spec.run_key
        if status == "crashed" and self._resubmitted.get(run_key, 0) < self.settings.retries:
            self._resubmitted[run_key] = self._resubmitted.get(run_key, 0) + 1
            return None
        error = f"its {self.cluster} job {job.job_id} ended ({job.state}) without a record"
        tail = (job.stderr() or "").strip().splitlines()[-_STDERR_TAIL_LINES:]
        return RunFinished(tracked.spec, self._failure(tracked, status, "\n".join([error, *tail])))

    def _failure(self, tracked: _Tracked, status: Status, error: str) -> RunRecord:
        """Its log is the run's own if it got that far, else the job's stderr."""
        files = ExecutionFiles.of(self.settings.artifacts, tracked.spec)
        log = files.log if files.log.is_file() else tracked.job.paths.stderr
        log_named = files.named_in_record(log)
        return failure_record(tracked.spec, status, error, tracked.started_at, log_named, self.settings)
