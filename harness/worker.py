"""Execute one run in the current process: load, split, run, measure, predict, score.

The run's files (log, predictions, learning curves) go into the run folder beside its record file,
so every executor (local, Ray, Slurm) moves them the same way: a worker writes them, the record names them.

Exceptions become the record's status (`oom` for out-of-memory errors, `failed`
otherwise) with the traceback in the error and the run's log; nothing escapes.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import random
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import ValidationError

from harness.contracts import Determinism
from harness.context import RunContext
from harness.curves import write_curves
from harness.parquet import write_table
from harness.environment import torch_details
from harness.measure import measured, subprocess_peak_mb
from harness.run_spec import RunSpec
from harness.record import RunRecord, describe_problems, utc_now
from harness.record_files import write_record_file
from harness.registry import methods
from harness.run_folders import ExecutionFiles
from harness.run_inputs import run_inputs
from harness.run_log import OutputPump


@dataclasses.dataclass
class _Produced:
    """What a run has produced so far: a run that fails midway keeps what it had measured."""

    device: str | None = None
    metrics: dict[str, float] = dataclasses.field(default_factory=dict)
    measurements: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    predictions: str | None = None
    curves: str | None = None
    # What the method promises of a repeat (`harness.Determinism`), kept with the environment so that a comparison
    # under another numerics fingerprint knows which cells must still agree bitwise; unknown if it never loaded.
    determinism: str | None = None


def execute(spec: RunSpec, runs: Path, environment: dict[str, Any], output: OutputPump | None = None,
            end_subprocesses: Callable[[], None] | None = None) -> RunRecord:
    """Run `spec` and return its finished record, also written as a record file in the run folder `runs`
    (with the run's log and predictions), for the coordinator or `harness ingest` to store.

    A local worker passes the pipe its runs' output goes through (`output`, whose read end its coordinator holds
    too) and how the processes a method leaves behind end (`end_subprocesses`), so that they end with the method
    and their peak memory counts against the run; elsewhere a run has a pipe of its own and its subprocesses are
    left alone."""
    started_at = utc_now()
    files = ExecutionFiles.of(runs, spec)
    files.log.parent.mkdir(parents=True, exist_ok=True)
    produced = _Produced()
    status, error = "ok", None
    with _logging_to(files.log, output) as log:
        try:
            _run(spec, files, produced, log, end_subprocesses)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the run's status
            if isinstance(exc, KeyboardInterrupt):
                raise
            status = "oom" if _is_out_of_memory(exc) else "failed"
            error = "".join(traceback.format_exception_only(exc)).strip()
            log.error("run %s (%s on %s, seed %d) failed:\n%s", spec.run_key, spec.method, spec.dataset.name,
                      spec.seed, "".join(traceback.format_exception(exc)))
    results = dataclasses.asdict(produced)
    determinism = {"determinism": scope} if (scope := results.pop("determinism")) else {}
    outcome = {"status": status, "error": error, "started_at": started_at, "finished_at": utc_now(),
               "log": _kept_log(files), "environment": environment | torch_details() | determinism}
    try:
        record = RunRecord.of(spec, **outcome, **results)
    except ValidationError as exc:  # a value no record can hold, e.g. a task's metric that is not a number
        failed = {"status": "failed", "error": f"its results cannot be recorded: {describe_problems(exc)}"}
        record = RunRecord.of(spec, **(outcome | failed))
    write_record_file(record, runs)
    return record


def _kept_log(files: ExecutionFiles) -> str | None:
    """The log as its record names it, or None for a run that wrote nothing to it (then removed): the record
    already holds what the harness knows about a run, so an empty log would only take a file's disk block."""
    if files.log.stat().st_size == 0:
        files.log.unlink()
        return None
    return files.named_in_record(files.log)


def _run(spec: RunSpec, files: ExecutionFiles, produced: _Produced, log: logging.Logger,
         end_subprocesses: Callable[[], None] | None) -> None:
    inputs = run_inputs(spec)
    if spec.predictions_file is not None:
        from harness.prediction_files import score_predictions_file

        produced.device = "none (scored predictions)"
        produced.determinism = Determinism.PER_NUMERICS.value  # a fixed file, scored in float arithmetic
        produced.metrics = score_predictions_file(inputs, Path(spec.predictions_file))
    else:
        assert spec.impl is not None  # the planner gives every spec an impl or a predictions file
        method = methods.get(spec.impl)(**spec.params)
        produced.determinism = method.determinism.value
        _seed_everything(spec.seed)
        ctx = RunContext(seed=spec.seed, device=_device(spec.device), threads=spec.threads, log=log)
        _pin_threads(spec.threads)
        produced.device = ctx.device
        subprocesses_before = subprocess_peak_mb()
        try:
            with measured(produced.measurements):
                output = method.run(inputs.instance.inputs, ctx)
        finally:  # the curves of a run that fails (a diverging loss) show how it got there
            if end_subprocesses is not None:
                end_subprocesses()
            if ctx.curves:
                _write_atomically(ctx.curves, files.curves, write_curves)
                produced.curves = files.named_in_record(files.curves)
        subprocesses = subprocess_peak_mb()
        _check_memory(spec, produced.measurements["peak_rss_mb"]["value"],
                      subprocesses if subprocesses > subprocesses_before else 0.0)
        produced.measurements.update(ctx.to_json())
        predictions = inputs.checked(inputs.task.predictions(inputs.instance, output))
        _write_atomically(predictions, files.predictions, write_table)
        produced.predictions = files.named_in_record(files.predictions)
        produced.metrics = inputs.score(predictions)


def _check_memory(spec: RunSpec, own_mb: float, subprocess_mb: float) -> None:
    """A peak above `resources.mem` fails the run as out of memory in every executor, as a cgroup limit
    would; the local executor also kills a worker while it is over, but a peak between its polls escapes that.
    The peak is the run's process's plus its largest subprocess's, as if they had peaked together, which a
    method waiting for its subprocess does; 0 for subprocesses peaking below an earlier run's in the same
    process, which only a reused Ray worker or the inline executor have."""
    limit, peak_mb = spec.resources.memory_mb, own_mb + subprocess_mb
    if limit is not None and peak_mb > limit:
        within = f" ({own_mb:.0f} MB in the run's process and {subprocess_mb:.0f} MB in its largest subprocess)"
        raise MemoryError(f"peak resident memory of {peak_mb:.0f} MB{within if subprocess_mb else ''} exceeded "
                          f"its resources.mem of {spec.resources.mem}")


def _is_out_of_memory(exc: BaseException) -> bool:
    """Host `MemoryError` (numpy's too), or torch's `OutOfMemoryError` on any device."""
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    import numpy as np

    np.random.seed(seed % 2**32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def _pin_threads(threads: int) -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def _device(requested: str) -> str:
    """`cpu`, or `cuda` when asked for (an error if absent) or when `auto` finds a GPU."""
    if requested == "cpu":
        return "cpu"
    torch = sys.modules.get("torch")
    available = torch is not None and torch.cuda.is_available()
    if requested == "cuda" and not available:
        raise RuntimeError("the suite asks for device 'cuda' but no CUDA device is available to this run")
    return "cuda" if available else "cpu"


def _write_atomically(content: Any, path: Path, write: Callable[[Any, Path], None]) -> None:
    """`write(content, file)` to a temporary file, renamed: a reader never sees half a table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    write(content, tmp)
    os.replace(tmp, path)


@contextmanager
def _logging_to(path: Path, output: OutputPump | None) -> Iterator[logging.Logger]:
    """The run's logger, and the process's stdout/stderr (C-level too, and so its subprocesses'), through the
    pipe of `output` (else one of the run's own) into the run's log, capped as it is written."""
    pump = output if output is not None else OutputPump()
    try:
        with pump.capturing(path), _redirected(pump.write_end, f"harness.run.{path.stem}") as log:
            yield log
    finally:
        if pump is not output:
            pump.close()


@contextmanager
def _redirected(pipe: int, logger: str) -> Iterator[logging.Logger]:
    """The run's logger `logger`, and this process's fds 1 and 2, writing to `pipe` while the block runs."""
    log = logging.getLogger(logger)
    log.setLevel(logging.INFO)
    log.propagate = False
    with open(os.dup(pipe), "w", encoding="utf-8") as stream:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(pipe, 1)
        os.dup2(pipe, 2)
        try:
            yield log
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            log.removeHandler(handler)
