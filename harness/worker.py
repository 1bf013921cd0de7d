"""Execute one run in the current process: load, split, run, measure, predict, score.

Exceptions become the record's status (`oom` for out-of-memory errors, `failed`
otherwise) with the traceback in the error and the run's log; nothing escapes.
"""
from __future__ import annotations

import logging
import os
import random
import sys
import traceback
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from harness.context import RunContext
from harness.environment import torch_details
from harness.measure import measured
from harness.planner import RunSpec
from harness.record import new_record, utc_now
from harness.record_files import records_dir, write_record_file
from harness.run_log import cap_log
from harness.registry import datasets, methods, metrics, tasks

_DATA_CACHE: OrderedDict[str, Any] = OrderedDict()
_DATA_CACHE_SIZE = 2


def execute(spec: RunSpec, artifacts: Path, environment: dict[str, Any]) -> dict[str, Any]:
    """Run `spec` and return its finished record, also written as a record file under `artifacts`
    (with the run's log and predictions), for the coordinator or `harness ingest` to store."""
    record = new_record(spec, utc_now())
    log_file = log_path(artifacts, spec)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    record["log"] = str(log_file.relative_to(artifacts.parent))
    with _logging_to(log_file) as log:
        log.info("run %s: %s on %s, seed %d", spec.run_key, spec.method, spec.dataset.name, spec.seed)
        try:
            _run(spec, record, artifacts, log)
            record["status"] = "ok"
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the run's status
            if isinstance(exc, KeyboardInterrupt):
                raise
            record["status"] = "oom" if _is_out_of_memory(exc) else "failed"
            record["error"] = "".join(traceback.format_exception_only(exc)).strip()
            log.error("%s", "".join(traceback.format_exception(exc)))
    record["environment"] = environment | torch_details()
    record["finished_at"] = utc_now()
    write_record_file(record, records_dir(artifacts, spec.suite))
    return record


def log_path(artifacts: Path, spec: RunSpec) -> Path:
    return execution_file(artifacts, spec, "logs", ".log")


def execution_file(artifacts: Path, spec: RunSpec, folder: str, suffix: str) -> Path:
    """A file of this execution of `spec`, named by run key and run id: two executions of one run (two
    coordinators, a `--force` rerun) never write one file, and a record names only its own execution's files."""
    return artifacts / spec.suite / folder / f"{spec.run_key}.{spec.run_id}{suffix}"


def _run(spec: RunSpec, record: dict[str, Any], artifacts: Path, log: logging.Logger) -> None:
    task = tasks.get(spec.task)()
    data = load_dataset(spec)
    instance = task.instance(data, spec.dataset.split, spec.seed)
    metric_objects = {name: metrics.get(full) for name, full in spec.metrics.items()}
    if spec.predictions_file is not None:
        from harness.prediction_files import score_predictions_file

        record["device"] = "none (scored predictions)"
        record["metrics"] = score_predictions_file(task, instance, Path(spec.predictions_file), metric_objects)
    else:
        method = methods.get(spec.impl)(**spec.params)
        _seed_everything(spec.seed)
        ctx = RunContext(seed=spec.seed, device=_device(spec.device), threads=spec.threads, log=log)
        _pin_threads(spec.threads)
        record["device"] = ctx.device
        with measured(record["measurements"]):
            output = method.run(instance.inputs, ctx)
        _check_memory(spec, record["measurements"]["peak_rss_mb"]["value"])
        record["measurements"].update(ctx.to_json())
        predictions = task.predictions(instance, output)
        path = execution_file(artifacts, spec, "predictions", ".parquet")
        _write_atomically(predictions, path)
        record["predictions"] = str(path.relative_to(artifacts.parent))
        record["metrics"] = task.score(instance, predictions, metric_objects)
    log.info("metrics: %s", record["metrics"])


def load_dataset(spec: RunSpec) -> Any:
    """The run's dataset, cached per fingerprint: seeds of one dataset load it once per worker."""
    key = spec.dataset.fingerprint
    if key not in _DATA_CACHE:
        _DATA_CACHE[key] = datasets.get(spec.dataset.loader)(**spec.dataset.load_args)
        while len(_DATA_CACHE) > _DATA_CACHE_SIZE:
            _DATA_CACHE.popitem(last=False)
    _DATA_CACHE.move_to_end(key)
    return _DATA_CACHE[key]


def _check_memory(spec: RunSpec, peak_mb: float) -> None:
    """A peak above `resources.mem` fails the run as out of memory in every executor, as a cgroup limit
    would; the local executor also kills a worker while it is over, but a peak between its polls escapes it."""
    limit = spec.resources.memory_mb
    if limit is not None and peak_mb > limit:
        raise MemoryError(f"peak resident memory of {peak_mb:.0f} MB exceeded its resources.mem of {spec.resources.mem}")


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


def _write_atomically(frame: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    frame.to_parquet(tmp, index=False)
    os.replace(tmp, path)


@contextmanager
def _logging_to(path: Path) -> Iterator[logging.Logger]:
    """The run's logger, and the process's stdout/stderr (C-level too), into the run's log file, capped
    once the run ends."""
    log = logging.getLogger(f"harness.run.{path.stem}")
    log.setLevel(logging.INFO)
    log.propagate = False
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with path.open("a", encoding="utf-8") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
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
            handler.close()
            cap_log(path)
