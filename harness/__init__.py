"""Benchmark and evaluation harness for ICLR-2026 research methods.

Family authors use `Task`, `Method` (with its `MethodParams` and `Determinism`), `Metric`, `Instance`,
`RunContext`, the registries and `DataError`; users call `harness.run(suite_path)` or the `harness` command.
"""
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.context import RunContext
from harness.contracts import Determinism, Instance, Method, Metric, Task
from harness.errors import DataError, HarnessError, SuiteError
from harness.method_params import MethodParams
from harness.registry import datasets, methods, metrics, tasks

if TYPE_CHECKING:
    import pandas as pd

__version__ = "0.1.0"
HARNESS_MAJOR = __version__.split(".")[0]


def run(suite_path: "str | Path", **options: Any) -> "pd.DataFrame":
    """`harness.api.run` (see its options), imported on first use so `import harness` stays light."""
    from harness.api import run as api_run

    return api_run(suite_path, **options)


__all__ = [
    "DataError", "Determinism", "HarnessError", "Instance", "Method", "MethodParams", "Metric", "RunContext",
    "SuiteError", "Task", "datasets", "methods", "metrics", "run", "tasks",
]
