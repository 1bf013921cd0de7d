"""The coordinator of `harness run`: plan, skip what is stored, execute, store each result.

It is the only writer of the store: one transaction per finished run, so killing it at
any moment loses at most the runs in flight, and a rerun picks up the rest.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.dataset_files import data_root
from harness.environment import environment
from harness.errors import DataError
from harness.executors.base import ExecutionSettings, Executor
from harness.planner import RunSpec, plan
from harness.progress import Progress
from harness.record_files import ingest, records_dir
from harness.registry import executors, load_plugin_file
from harness.store import Store
from harness.suite import Suite, load_suite
from harness.worker import load_dataset


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


@dataclass
class RunOutcome:
    suite: Suite
    planned: list[RunSpec]
    executed: int
    failed: int
    interrupted: bool = False


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
    load_plugins(options.plugins)
    executors.resolve(options.executor)  # a misspelt executor fails now, even when nothing is left to run
    suite, planned = plan_suite(suite_path, options.data_root)
    with Store(options.store) as store:
        picked_up = ingest(records_dir(store.artifacts_dir.absolute(), suite.suite), store)
        if picked_up.added or picked_up.corrupt:
            print(f"run folder: {picked_up.summary()}", file=sys.stderr)
        for warning in picked_up.warnings():
            print(warning, file=sys.stderr)
        todo = runs_to_execute(planned, store.stored_statuses(r.run_key for r in planned), options)
        outcome = RunOutcome(suite, planned, executed=0, failed=0)
        if not todo:
            return outcome
        check_datasets(todo)
        executor = _executor(options, store)
        for spec in todo:
            executor.submit(spec)
        progress = Progress(len(todo), len(planned) - len(todo), live=options.live_progress)
        try:
            for event in executor.events():
                if event.kind == "started":
                    progress.started(event.spec)
                    continue
                record: dict[str, Any] = event.record  # type: ignore[assignment]
                store.put(record)
                outcome.executed += 1
                outcome.failed += record["status"] != "ok"
                progress.finished(event.spec, record)
        except KeyboardInterrupt:
            executor.cancel()
            outcome.interrupted = True
        finally:
            progress.close()
    return outcome


def check_datasets(runs: list[RunSpec]) -> None:
    """Load each dataset once here, so a malformed file is a user error (exit 3), not N failed runs."""
    seen: set[str] = set()
    for spec in runs:
        if spec.dataset.fingerprint in seen:
            continue
        seen.add(spec.dataset.fingerprint)
        try:
            load_dataset(spec)
        except (TypeError, ValueError) as exc:
            raise DataError(f"dataset '{spec.dataset.name}' cannot be loaded: {exc}",
                            field=f"datasets.{spec.dataset.name}.args",
                            hint="Check the loader's arguments (`harness ls datasets`).") from None


def _executor(options: RunOptions, store: Store) -> Executor:
    settings = ExecutionSettings(
        artifacts=store.artifacts_dir.absolute(), environment=environment(), jobs=options.jobs,
        plugins=tuple(str(Path(p).absolute()) for p in options.plugins), retries=options.retries,
        ray_address=options.ray_address, slurm_partition=options.slurm_partition,
        slurm_max_concurrent=options.slurm_max_concurrent,
    )
    return executors.get(options.executor)(settings)
