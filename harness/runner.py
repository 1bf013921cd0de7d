"""The coordinator of `harness run`: plan, skip what is stored, claim, execute, store each result.

It writes one transaction per finished run, so killing it at any moment loses at most the
runs in flight, and a rerun picks up the rest. Several coordinators may share one store:
each claims runs a few at a time (`claims.py`) and executes only its own, waits for those a
live peer holds, and counts the ones a peer stored, so every run is executed once.
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.claim_registry import registration_of
from harness.claims import Claimant, RunClaims, heartbeat
from harness.dataset_files import data_root, load_error
from harness.environment import environment
from harness.errors import MissingExtraError
from harness.executors.base import ExecutionSettings, Executor, RunStarted
from harness.executors.local import LocalExecutor, Worker, spawn_worker
from harness.extras import family_unavailable
from harness.planner import plan
from harness.run_spec import RunSpec
from harness.progress import Progress
from harness.record import RunRecord, utc_now
from harness.record_files import consume_record_file, ingest
from harness.registry import executors, load_plugin_file
from harness.run_folders import records_folder
from harness.run_inputs import load_dataset
from harness.store import Store
from harness.suite import Suite, load_suite


@dataclass(frozen=True)
class RunOptions:
    store: Path
    executor: str = "local"
    jobs: int = 1
    force: bool = False
    retry_failed: bool = False
    data_root: Path | None = None
    plugins: tuple[str, ...] = ()
    live_progress: bool | None = None
    retries: int = 0
    ray_address: str | None = None
    slurm_partition: str | None = None
    slurm_max_concurrent: int = 64
    only: frozenset[str] | None = None  # the run keys to run (`harness reproduce`'s sample); None: the whole plan


_PEER_POLL_S = 0.5  # how often a coordinator looks again at runs a peer holds


@dataclass
class RunOutcome:
    suite: Suite
    planned: list[RunSpec]
    executed: int
    failed: int
    interrupted: bool = False
    by_peers: int = 0          # runs another coordinator on the store executed meanwhile
    by_peers_failed: int = 0

    def summary(self) -> str:
        """The line `run` and `ci` print: what this command executed, what peers did, what was stored before."""
        rest = len(self.planned) - self.executed - self.by_peers
        peers = (f"{self.by_peers} executed by another coordinator ({self.by_peers_failed} failed), "
                 if self.by_peers else "")
        return (f"suite {self.suite.suite}: {self.executed} runs executed ({self.failed} failed), {peers}"
                f"{rest} {'not run (interrupted)' if self.interrupted else 'already stored'}")

    @property
    def any_failed(self) -> bool:
        return bool(self.failed or self.by_peers_failed)


def load_plugins(plugins: tuple[str, ...]) -> None:
    for plugin in plugins:
        load_plugin_file(plugin)


def plan_suite(suite_path: str | Path, root: Path | None = None) -> tuple[Suite, list[RunSpec]]:
    suite, source = load_suite(suite_path)
    return suite, plan(suite, source, data_root(root))


def runs_to_execute(planned: list[RunSpec], stored: dict[str, str], options: RunOptions) -> list[RunSpec]:
    """Resume: skip stored runs unless forced; `retry_failed` re-runs stored failures."""
    if options.force:
        return list(planned)
    return [r for r in planned if r.run_key not in stored or (options.retry_failed and stored[r.run_key] != "ok")]


def run_suite(suite_path: str | Path, options: RunOptions) -> RunOutcome:
    # Into a new store every planned run will execute, so the local executor's first worker starts now, before
    # plugins load and the suite is planned: its imports overlap the coordinator's (3 runs: 0.9 s -> 0.75 s on
    # 2 cores). With a store, where a re-run may find everything stored, workers start once there is work.
    fresh = options.executor == "local" and not Path(options.store).exists()
    spawned = spawn_worker() if fresh else None
    try:
        return _run_suite(suite_path, options, spawned)
    finally:
        if spawned is not None and spawned.process.is_alive():  # left unused: nothing to run, or an error
            spawned.kill()


def _run_suite(suite_path: str | Path, options: RunOptions, spawned: Worker | None) -> RunOutcome:
    load_plugins(options.plugins)
    executors.resolve(options.executor)  # a misspelt executor fails now, even when nothing is left to run
    suite, planned = plan_suite(suite_path, options.data_root)
    if options.only is not None:
        planned = [spec for spec in planned if spec.run_key in options.only]
    with Store(options.store) as store:
        picked_up = ingest(records_folder(store.artifacts_dir.absolute(), suite.suite), store)
        if picked_up.added or picked_up.corrupt or picked_up.not_plain:
            print(f"run folder: {picked_up.summary()}", file=sys.stderr)
        for warning in picked_up.warnings():
            print(warning, file=sys.stderr)
        todo = runs_to_execute(planned, store.stored_statuses(r.run_key for r in planned), options)
        outcome = RunOutcome(suite, planned, executed=0, failed=0)
        if not todo:
            return outcome
        check_extras(todo)
        check_datasets(todo)
        executor = _executor(options, store, spawned, worker_count(options.jobs, len(todo)))
        progress = Progress(len(todo), len(planned) - len(todo), live=options.live_progress)
        shared = SharedRuns(todo, store, store.claims(Claimant.this_process()), outcome, progress)
        try:
            with heartbeat(store.path, shared.claims.claimant):
                _execute(shared, executor)
        except KeyboardInterrupt:
            executor.cancel()
            outcome.interrupted = True
        finally:
            shared.claims.release()
            progress.close()
    return outcome


class SharedRuns:
    """The runs this coordinator still needs from a store it may share: claimed a window at a time,
    and counted (not run) once a peer has stored them."""

    def __init__(self, todo: list[RunSpec], store: Store, claims: RunClaims, outcome: RunOutcome,
                 progress: Progress) -> None:
        self.waiting = {spec.run_key: spec for spec in todo}
        stored = store.stored_runs()
        self.seen = {key: stored[key][0] if key in stored else None for key in self.waiting}
        self.store, self.claims, self.outcome, self.progress = store, claims, outcome, progress
        self.held = 0  # runs a live peer holds, at the last claim
        # The suite's first stored run registers its claims (`claim_registry`): before any result could be seen.
        self.unregistered = store.claims_unregistered(outcome.suite.suite, (spec.run_key for spec in outcome.planned))

    def claim(self, limit: int | None) -> list[RunSpec]:
        """Up to `limit` (None: every) waiting runs, now leased to us; peers' finished runs are counted."""
        if not self.waiting:
            return []
        runs = [(key, spec.run_id) for key, spec in self.waiting.items()]
        result = self.claims.claim(runs, self.seen, len(runs) if limit is None else limit)
        for record in self.store.run_records(result.done) if result.done else ():
            spec = self.waiting.pop(record.run_key)
            self.outcome.by_peers += 1
            self.outcome.by_peers_failed += record.status != "ok"
            self.progress.finished(spec, record, elsewhere=True)
        self.held = len(result.held)
        return [self.waiting.pop(key) for key in result.claimed]

    def store_result(self, spec: RunSpec, record: RunRecord) -> None:
        self.store.put(record)
        if self.unregistered:
            self.store.register_claims(registration_of(self.outcome.suite, utc_now()))
            self.unregistered = False
        consume_record_file(record, self.store.artifacts_dir.absolute())
        self.claims.release([spec.run_key])
        self.outcome.executed += 1
        self.outcome.failed += record.status != "ok"
        self.progress.finished(spec, record)

    def give_back(self, specs: Iterable[RunSpec]) -> None:
        """Runs an executor ended without finishing: still ours, claimed again next round."""
        self.waiting.update((spec.run_key, spec) for spec in specs)


def _execute(shared: SharedRuns, executor: Executor) -> None:
    """Rounds of: claim a window of runs, execute them (topping the window up as runs finish), store
    each result; when a peer holds every run still needed, wait for it."""
    window = None if executor.queues_remotely else max(1, executor.settings.jobs) * executor.runs_held_per_job
    waiting_said = False
    while shared.waiting:
        in_flight = {spec.run_key: spec for spec in shared.claim(window)}
        if not in_flight:
            if shared.waiting:  # a live peer holds every run still needed
                if not waiting_said:
                    print(f"waiting for {shared.held} runs that another coordinator on this store is executing",
                          file=sys.stderr)
                    waiting_said = True
                time.sleep(_PEER_POLL_S)
            continue
        for spec in in_flight.values():
            executor.submit(spec)
        for event in executor.events():
            if isinstance(event, RunStarted):
                shared.progress.started(event.spec)
                continue
            shared.store_result(event.spec, event.record)
            in_flight.pop(event.spec.run_key, None)
            if window is not None and len(in_flight) < window:
                for spec in shared.claim(window - len(in_flight)):
                    in_flight[spec.run_key] = spec
                    executor.submit(spec)
        shared.give_back(in_flight.values())


def check_extras(runs: list[RunSpec]) -> None:
    """Stop before running when a family the runs use lacks its pip extra: one error with the install line,
    not a failed run per cell."""
    names = {name for spec in runs for name in (spec.task, spec.impl or spec.task, *spec.metrics.values())}
    for family in sorted({name.split(".", 1)[0] for name in names}):
        if reason := family_unavailable(family):
            raise MissingExtraError(reason, field="methods",
                                    hint="Install it and run the same command again: stored runs are kept.")


def check_datasets(runs: list[RunSpec]) -> None:
    """Load each dataset once here, so a malformed file, a folder where a file belongs or arguments too large
    for memory are a user error (exit 3), not N failed runs."""
    seen: set[str] = set()
    for spec in runs:
        if spec.dataset.fingerprint in seen:
            continue
        seen.add(spec.dataset.fingerprint)
        try:
            load_dataset(spec)
        except (TypeError, ValueError, OSError, MemoryError) as exc:
            raise load_error(spec.dataset, exc) from None


def worker_count(jobs: int, queued: int) -> int:
    """`--jobs` as the workers to start: at most one per queued run and one per CPU this process may use, with a
    note when the CPUs lower it. More only cost memory: `--jobs 10000` on 24 runs started 24 workers, 3.1 GB."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if min(jobs, queued) > cpus:
        print(f"note: --jobs {jobs} lowered to {cpus}, the CPUs this machine gives the run", file=sys.stderr)
    return max(1, min(jobs, queued, cpus))


def _executor(options: RunOptions, store: Store, spawned: Worker | None, jobs: int) -> Executor:
    settings = ExecutionSettings(
        artifacts=store.artifacts_dir.absolute(), environment=environment(), jobs=jobs,
        plugins=tuple(str(Path(p).absolute()) for p in options.plugins), retries=options.retries,
        ray_address=options.ray_address, slurm_partition=options.slurm_partition,
        slurm_max_concurrent=options.slurm_max_concurrent,
    )
    if spawned is not None:
        return LocalExecutor(settings, spawned)
    return executors.get(options.executor)(settings)
