"""Runs as Ray tasks, on a local Ray instance or an existing cluster (`--ray-address`).

Each run is one task that reserves the method's declared resources (`cpus`, `gpus`,
`mem`), executes the run, writes its record file and returns the record. Tasks are kept
in flight only as far as the cluster has room, so a run's timeout starts close to when
it really starts. A lost worker or node marks the run crashed (after `--retries`
re-submissions); finished runs are already stored and never lost.
"""
from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.errors import HarnessError
from harness.executors.base import (ExecutionSettings, Executor, RunEvent, RunFinished, RunStarted, execute_remote,
                                    failure_record)
from harness.run_spec import RunSpec
from harness.record import Status, utc_now

_POLL_S = 0.5


@dataclass
class _Task:
    spec: RunSpec
    attempt: int
    started_at: str
    deadline: float


class RayExecutor(Executor):
    queues_remotely = True  # the cluster, not `jobs`, decides how many run at once

    def __init__(self, settings: ExecutionSettings) -> None:
        super().__init__(settings)
        self._queue: deque[tuple[RunSpec, int]] = deque()
        self._tasks: dict[Any, _Task] = {}
        self._started_ray = False

    def submit(self, spec: RunSpec) -> None:
        self._queue.append((spec, 0))

    def events(self) -> Iterator[RunEvent]:
        ray = self._connect()
        remote = ray.remote(execute_remote)
        try:
            while self._queue or self._tasks:
                while self._queue and self._has_room(ray, self._queue[0][0]):
                    spec, attempt = self._queue.popleft()
                    self._launch(ray, remote, spec, attempt)
                    if attempt == 0:
                        yield RunStarted(spec)
                ready, _ = ray.wait(list(self._tasks), num_returns=1, timeout=_POLL_S)
                for ref in ready:
                    event = self._finish(ray, ref)
                    if event is not None:
                        yield event
                yield from self._expire(ray)
        finally:
            self.cancel()

    def _connect(self) -> Any:
        try:
            import ray
        except ImportError:
            raise HarnessError("the ray executor needs Ray",
                               hint="Install the extra: pip install 'iclr26-harness[ray]'.") from None

        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no telemetry: nothing leaves the machine
            local = self.settings.ray_address is None
            ray.init(address=self.settings.ray_address, num_cpus=self.settings.jobs if local else None,
                     include_dashboard=False, log_to_driver=False, configure_logging=False)
            self._started_ray = True
        return ray

    def _has_room(self, ray: Any, spec: RunSpec) -> bool:
        """Keep in flight only what the cluster can run now; the rest waits here, not in Ray's queue."""
        total = ray.cluster_resources()
        busy_cpus = sum(t.spec.resources.cpus for t in self._tasks.values())
        busy_gpus = sum(t.spec.resources.gpus for t in self._tasks.values())
        fits_cpu = busy_cpus + spec.resources.cpus <= max(total.get("CPU", 1), spec.resources.cpus)
        fits_gpu = busy_gpus + spec.resources.gpus <= total.get("GPU", 0) or spec.resources.gpus == 0
        return not self._tasks or (fits_cpu and fits_gpu)

    def _launch(self, ray: Any, remote: Any, spec: RunSpec, attempt: int) -> None:
        options: dict[str, Any] = {"num_cpus": spec.resources.cpus, "num_gpus": spec.resources.gpus, "max_retries": 0}
        if spec.resources.memory_mb is not None:
            options["memory"] = spec.resources.memory_mb * 2**20
        ref = remote.options(**options).remote(spec, self.settings)
        self._tasks[ref] = _Task(spec, attempt, utc_now(), time.monotonic() + spec.timeout)

    def _finish(self, ray: Any, ref: Any) -> RunEvent | None:
        import ray.exceptions as errors

        task = self._tasks.pop(ref)
        try:
            return RunFinished(task.spec, ray.get(ref))
        except errors.OutOfMemoryError as exc:
            return self._failed(task, "oom", f"Ray's memory monitor killed the run: {_first_line(exc)}")
        except errors.RayTaskError as exc:  # the task body itself raised (`execute` records method errors)
            return self._failed(task, "failed", f"the Ray task raised: {_first_line(exc)}")
        except (errors.WorkerCrashedError, errors.NodeDiedError, errors.LocalRayletDiedError,
                errors.ObjectLostError) as exc:
            if task.attempt < self.settings.retries:
                self._queue.appendleft((task.spec, task.attempt + 1))
                return None
            return self._failed(task, "crashed", f"the Ray worker running it was lost: {_first_line(exc)}")

    def _expire(self, ray: Any) -> Iterator[RunEvent]:
        now = time.monotonic()
        for ref, task in list(self._tasks.items()):
            if now > task.deadline:
                ray.cancel(ref, force=True)
                del self._tasks[ref]
                yield self._failed(task, "timeout",
                                   f"exceeded the timeout of {task.spec.timeout:g} s; its Ray task was killed")

    def _failed(self, task: _Task, status: Status, error: str) -> RunFinished:
        return RunFinished(task.spec, failure_record(task.spec, status, error, task.started_at, None, self.settings))

    def cancel(self) -> None:
        self._queue.clear()
        if not self._started_ray:
            return
        import ray

        for ref in list(self._tasks):
            ray.cancel(ref, force=True)
        self._tasks.clear()
        ray.shutdown()
        self._started_ray = False


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
