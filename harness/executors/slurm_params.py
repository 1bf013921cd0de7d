"""What a run asks of Slurm: its resources in submitit's vocabulary, and how its outcome is named.

Kept apart from the executor so the mapping can be tested (and read) without a cluster.
"""
from __future__ import annotations

import math
from typing import Any

from harness.executors.base import THREAD_VARIABLES
from harness.record import Status
from harness.run_resources import Resources

# A job's wall-clock limit also covers interpreter start and imports, which a run's
# own timeout does not count (the local executor starts the clock once its worker is ready).
STARTUP_ALLOWANCE_MIN = 1

# How long before its time limit Slurm sends a job submitit's warning signal (USR2; submitit's default is 90 s).
# A run ignores it (`run_array_task`), but one that lands while the interpreter is still starting kills the job:
# slurmctld checks for due warnings every 30 s and sends them up to that much early, so at 90 s a job with the
# shortest limit (2 minutes) could be signalled as it starts, and was. At 0 a warning can only come in the last
# 30 s, when the time limit is about to end the job anyway.
WARNING_SIGNAL_DELAY_S = 0

# Slurm's terminal job states that say why a job left no record; anything else means it was lost.
_STATUS_OF_STATE: dict[str, Status] = {"TIMEOUT": "timeout", "DEADLINE": "timeout", "OUT_OF_MEMORY": "oom"}


def slurm_parameters(resources: Resources, timeout_s: float, default_partition: str | None) -> dict[str, Any]:
    """`submitit.AutoExecutor.update_parameters` arguments for one run.

    The method's own `partition` wins over `--slurm-partition`; its `time` over the suite's
    timeout. Memory goes as `mem_gb`, which submitit writes as whole GB or as MB, so '512M'
    stays 512 MB.
    """
    minutes = resources.time_minutes or math.ceil(timeout_s / 60) + STARTUP_ALLOWANCE_MIN
    parameters: dict[str, Any] = {"timeout_min": minutes, "cpus_per_task": resources.cpus}
    if resources.gpus:
        parameters["gpus_per_node"] = resources.gpus
    if resources.memory_mb is not None:
        parameters["mem_gb"] = resources.memory_mb / 1024
    partition = resources.partition or default_partition
    if partition is not None:
        parameters["slurm_partition"] = partition
    return parameters


def status_of_state(state: str) -> Status:
    """The record status of a job that ended without a record, from its Slurm state
    ('CANCELLED by 0' reads as its first word)."""
    words = state.split()
    return _STATUS_OF_STATE.get(words[0] if words else "", "crashed")


def thread_setup(threads: int) -> list[str]:
    """Shell lines run before a job's interpreter starts, so BLAS reads them as in a local worker:
    `threads` per run unless the environment already says otherwise."""
    return [f"export {name}=${{{name}:-{threads}}}" for name in THREAD_VARIABLES]
