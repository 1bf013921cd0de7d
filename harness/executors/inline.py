"""Runs in the coordinator's own process, one after another: for debugging with pdb.

No isolation: a timeout is not enforced and a crash ends the coordinator.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from harness.executors.base import ExecutionSettings, Executor, RunEvent, RunFinished, RunStarted
from harness.run_spec import RunSpec
from harness.worker import execute


class InlineExecutor(Executor):
    def __init__(self, settings: ExecutionSettings) -> None:
        super().__init__(settings)
        self._queue: deque[RunSpec] = deque()

    def submit(self, spec: RunSpec) -> None:
        self._queue.append(spec)

    def events(self) -> Iterator[RunEvent]:
        while self._queue:
            spec = self._queue.popleft()
            yield RunStarted(spec)
            yield RunFinished(spec, execute(spec, self.settings.artifacts, self.settings.environment))

    def cancel(self) -> None:
        self._queue.clear()
