"""A pool of worker processes on this machine: the default executor.

Each worker is a fresh interpreter (spawn), pinned to one GPU via CUDA_VISIBLE_DEVICES
when GPUs exist, and reused across runs. A worker holds two runs at a time: the one it executes
and the next, whose clock starts only when the worker takes it up. A run that exceeds its timeout has
its worker killed; a worker that dies (segfault, SIGKILL, OOM killer) has its run recorded as crashed;
a run whose worker tree holds more resident memory than its `resources.mem` has the tree killed and is
recorded as oom; either way a new worker takes its place, the run it held next goes back to the queue,
and the suite goes on. A worker also leaves after a run that started subprocesses: the peak memory of its
subprocesses, which the run's memory check adds (`harness.worker`), can only be told apart per run in a worker
that had none before. A run's processes end with it and with its coordinator, even when that is SIGKILLed
(`harness.executors.process_tree`); its output comes through a pipe whose read end the coordinator holds
too, so the log of a worker that died mid-run still ends with its last words (`harness.run_log`).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import recv_handle, send_handle
from typing import Any

from harness.environment import gpu_names
from harness.errors import HarnessError
from harness.executors.base import (THREAD_VARIABLES, ExecutionSettings, Executor, RunEvent, RunFinished, RunStarted,
                                    failure_record)
from harness.executors.process_tree import (die_with_parent, end_children, group_keeper, kill_group, kill_tree,
                                            lead_own_group, resident_mb)
from harness.run_spec import RunSpec
from harness.record import RunRecord, Status, utc_now
from harness.run_folders import ExecutionFiles
from harness.run_log import OutputPump, drain, finish_log

# How often a busy worker's memory is looked at: listing a process tree reads all of /proc (about 2 ms
# here), and a fast allocation can overshoot `resources.mem` for at most this long.
_POLL_S = 0.25
# Runs a worker holds: the one it executes and the next, already in its pipe, so it starts that one while
# the coordinator stores the last (on 2 cores a 300-run no-op grid takes 2.2 s with one held, 1.6 s with two).
_HELD_PER_WORKER = 2


def worker_main(conn: Connection, coordinator: int) -> None:
    """A worker: import the harness, receive its set-up (GPU, threads, settings), then execute each run it
    receives and send back its record with whether it leaves now, until the coordinator kills it. The set-up
    comes late so that a worker can start before the coordinator has planned the suite (see `spawn_worker`)."""
    die_with_parent(coordinator)
    lead_own_group()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator owns Ctrl-C
    import faulthandler

    faulthandler.enable()  # a segfault's stack lands in the run's log (fd 2 points there during a run)
    from harness.measure import subprocess_peak_mb
    from harness.parquet import preload
    from harness.registry import load_plugin_file
    from harness.worker import execute  # the harness's own imports load no numpy: thread variables still apply

    output = OutputPump()
    try:
        gpu, threads, settings = conn.recv()
        if gpu is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
        for variable in THREAD_VARIABLES:
            os.environ.setdefault(variable, str(threads))
        for plugin in settings.plugins:
            load_plugin_file(plugin)
        preload()
        conn.send("ready")
        send_handle(conn, output.read_end, coordinator)
        while True:
            spec, before = conn.recv(), subprocess_peak_mb()
            record = execute(spec, settings.artifacts, settings.environment, output, end_subprocesses=end_children)
            leaves = subprocess_peak_mb() > before  # a later run's subprocesses, peaking lower, would not show
            conn.send((record, leaves))
            if leaves:
                os._exit(0)
    except (EOFError, BrokenPipeError):
        return  # the coordinator is gone (where no death signal stopped us first): end quietly


class Worker:
    """A worker process and the runs it holds, in order; the first runs once the worker is ready."""

    def __init__(self, mp: Any) -> None:
        self.conn, child = mp.Pipe()
        self.process = mp.Process(target=worker_main, args=(child, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        self.keeper = group_keeper(self.process.pid)
        self.output: int | None = None  # the read end of the worker's output pipe, sent once it is ready
        self.ready = False  # set by the worker's first message, once its imports are done
        self.held: deque[RunSpec] = deque()
        self.started_at = ""
        self.deadline = 0.0
        self.memory_checked_at = 0.0

    def set_up(self, gpu: int | None, threads: int, settings: ExecutionSettings) -> None:
        self.conn.send((gpu, threads, settings))

    @property
    def running(self) -> RunSpec | None:
        return self.held[0] if self.ready and self.held else None

    def check_ready(self) -> bool:
        """Timeouts start once a worker is ready, so a slow interpreter start never eats a run's time."""
        if self.conn.poll():
            try:
                self.conn.recv()  # "ready", then the read end of its output pipe
                self.output = recv_handle(self.conn)
                os.set_inheritable(self.output, False)
                self.ready = True
            except (EOFError, OSError):
                pass  # it died meanwhile: seen as a death next time round
        elif not self.process.is_alive():
            raise HarnessError(f"a worker process could not start (exit code {self.process.exitcode})",
                               hint="Run with --executor inline to see the error.")
        return self.ready

    def hold(self, spec: RunSpec) -> None:
        """Queue `spec` in the worker. A worker that died since the last look (a method that killed its
        process) cannot take it: the run stays held, and the death, seen next, puts it back in the queue."""
        self.held.append(spec)
        try:
            self.conn.send(spec)
        except BrokenPipeError:
            pass

    def begin(self) -> RunSpec:
        """Start the clock of the run the worker takes up now: the first it holds."""
        spec = self.held[0]
        self.started_at, self.deadline = utc_now(), time.monotonic() + spec.timeout
        return spec

    def resident_mb_over_limit(self) -> float | None:
        """The worker tree's resident MB when above its run's `resources.mem`, looked at once per _POLL_S."""
        spec = self.running
        assert spec is not None
        limit = spec.resources.memory_mb
        now = time.monotonic()
        if limit is None or now < self.memory_checked_at + _POLL_S:
            return None
        self.memory_checked_at = now
        used = resident_mb(self.process.pid)
        return used if used > limit else None

    def kill(self) -> bytes:
        """SIGKILL the worker, its descendants and its process group, and return what its output pipe still held:
        the last words of a run it was executing."""
        if self.process.is_alive():
            kill_tree(self.process.pid)
        kill_group(self.process.pid)
        self.process.join(timeout=5)
        self.keeper.kill()
        self.keeper.communicate()  # reaps it and closes its stdin
        self.conn.close()
        if self.output is None:
            return b""
        left = drain(self.output)  # its writers are dead; one that left the worker's group will not be waited for
        os.close(self.output)
        self.output = None
        return left


def spawn_worker() -> Worker:
    """A worker started before the suite is planned, for a `LocalExecutor` to set up and use: its imports
    (0.3-0.5 s) then overlap the coordinator's, which is most of a small suite's fixed cost."""
    return Worker(multiprocessing.get_context("spawn"))


class LocalExecutor(Executor):
    runs_held_per_job = _HELD_PER_WORKER

    def __init__(self, settings: ExecutionSettings, spawned: Worker | None = None) -> None:
        super().__init__(settings)
        self._mp = multiprocessing.get_context("spawn")
        self._queue: deque[RunSpec] = deque()
        self._spawned = spawned
        self._workers: list[Worker] = []
        self._gpus = list(range(len(gpu_names())))

    def submit(self, spec: RunSpec) -> None:
        self._queue.append(spec)

    def events(self) -> Iterator[RunEvent]:
        wanted = min(self.settings.jobs, len(self._queue))
        threads = self._queue[0].threads if self._queue else 1
        for index in range(wanted):
            self._workers.append(self._start_worker(index, threads))
        try:
            yield from self._loop()
        finally:
            self.cancel()

    def _start_worker(self, index: int, threads: int) -> Worker:
        worker, self._spawned = self._spawned or Worker(self._mp), None
        worker.set_up(self._gpus[index % len(self._gpus)] if self._gpus else None, threads, self.settings)
        return worker

    def _loop(self) -> Iterator[RunEvent]:
        while self._queue or any(w.held for w in self._workers):
            for worker in self._workers:
                while len(worker.held) < _HELD_PER_WORKER and self._queue:
                    worker.hold(self._queue.popleft())
                    if len(worker.held) == 1 and worker.ready:
                        yield RunStarted(worker.begin())
            watched = [w for w in self._workers if w.held or not w.ready]
            deadlines = [w.deadline for w in watched if w.running is not None]
            timeout = max(0.0, min(deadlines, default=time.monotonic() + _POLL_S) - time.monotonic())
            wait([w.conn for w in watched] + [w.process.sentinel for w in watched], timeout=min(timeout, _POLL_S))
            for worker in self._workers:
                if not worker.ready and worker.check_ready() and worker.held:
                    yield RunStarted(worker.begin())
            for index, worker in enumerate(self._workers):
                spec = worker.running
                event = None if spec is None else self._collect(worker, spec)
                if spec is None or event is None:
                    continue
                worker.held.popleft()
                if not worker.process.is_alive():  # killed or dead: the runs it held next never started
                    self._queue.extendleft(reversed(worker.held))
                    self._workers[index] = self._start_worker(index, spec.threads)
                yield event
                if worker.process.is_alive() and worker.held:
                    yield RunStarted(worker.begin())

    def _collect(self, worker: Worker, spec: RunSpec) -> RunEvent | None:
        if worker.conn.poll():
            try:
                record, leaves = worker.conn.recv()
            except (EOFError, OSError):
                pass  # the worker died mid-send: a crash, handled below
            else:
                if leaves:
                    worker.kill()
                return RunFinished(spec, record)
        if not worker.process.is_alive() or worker.conn.closed:
            return RunFinished(spec, self._failure(worker, spec, "crashed", _death_reason(worker.process.exitcode)))
        if (used := worker.resident_mb_over_limit()) is not None:
            message = (f"used {used:.0f} MB of resident memory, above its resources.mem of {spec.resources.mem}; "
                       "its worker was killed")
            return RunFinished(spec, self._failure(worker, spec, "oom", message))
        if time.monotonic() > worker.deadline:
            message = f"exceeded the timeout of {spec.timeout:g} s; its worker was killed"
            return RunFinished(spec, self._failure(worker, spec, "timeout", message))
        return None

    def _failure(self, worker: Worker, spec: RunSpec, status: Status, error: str) -> RunRecord:
        """Kill `worker` (dead already, for a crash) and record its run as failed with `status`."""
        last_words = worker.kill()
        files = ExecutionFiles.of(self.settings.artifacts, spec)
        finish_log(files.log, last_words)  # the worker that would have finished it is gone
        log = files.named_in_record(files.log) if files.log.is_file() else None
        return failure_record(spec, status, error, worker.started_at, log, self.settings)

    def cancel(self) -> None:
        """Kill every worker: an idle one has nothing left to write, and waiting for its interpreter to
        exit (about 45 ms with pandas loaded) would only add to every suite's fixed cost."""
        self._queue.clear()
        for worker in [*self._workers, *([self._spawned] if self._spawned else [])]:
            worker.kill()
        self._workers, self._spawned = [], None


def _death_reason(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        extra = " (possibly the out-of-memory killer)" if name == "SIGKILL" else ""
        return f"the worker died from {name}{extra}; see the run's log"
    return f"the worker exited with code {exitcode} before reporting; see the run's log"
