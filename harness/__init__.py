"""Benchmark and evaluation harness for ICLR-2026 research methods.

Family authors use `Task`, `Method` (with its `MethodParams` and `Determinism`), `Metric`, `Instance`,
`RunContext`, the registries and `DataError`; users call `harness.run(suite_path)` or the `harness` command.
Those names are imported on first use (`lazy_names`), so that a command's Ctrl-C handling starts before them.
"""
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.lazy_names import imported_on_first_use

if TYPE_CHECKING:
    import pandas as pd

    from harness.context import RunContext
    from harness.contracts import Determinism, Instance, Method, Metric, Task
    from harness.errors import DataError, HarnessError, SuiteError
    from harness.method_params import MethodParams
    from harness.registry import datasets, methods, metrics, tasks

__version__ = "0.1.0"
HARNESS_MAJOR = __version__.split(".")[0]

__getattr__ = imported_on_first_use(globals(), {
    "RunContext": "harness.context", "Determinism": "harness.contracts", "Instance": "harness.contracts",
    "Method": "harness.contracts", "Metric": "harness.contracts", "Task": "harness.contracts",
    "DataError": "harness.errors", "HarnessError": "harness.errors", "SuiteError": "harness.errors",
    "MethodParams": "harness.method_params", "datasets": "harness.registry", "methods": "harness.registry",
    "metrics": "harness.registry", "tasks": "harness.registry",
})


def run(suite_path: "str | Path", **options: Any) -> "pd.DataFrame":
    """`harness.api.run` (see its options), imported on first use so `import harness` stays light."""
    from harness.api import run as api_run

    return api_run(suite_path, **options)


__all__ = [
    "DataError", "Determinism", "HarnessError", "Instance", "Method", "MethodParams", "Metric", "RunContext",
    "SuiteError", "Task", "datasets", "methods", "metrics", "run", "tasks",
]
