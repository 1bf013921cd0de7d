"""Where a store keeps its runs' files: the one place that spells the run folder's layout.

    results.sqlite
    results-runs/                              the store's run folder, one per store
      <suite>/
        records/<run_key>.<run_id>.json        the run's record file (`record_files`), until the store holds it
        logs/<run_key>.<run_id>.log            its log, when the run wrote to it
        predictions/<run_key>.<run_id>.parquet its per-sample predictions
        curves/<run_key>.<run_id>.parquet      its learning curves, when it records any (`curves`)
        slurm/                                 submitit's files and the job journal
        results.md                             the table `run` and `score` print

The suite's folder is its name, or past 120 characters the name's start and a hash of it (`file_safe`): a suite
name of 300 characters once ended `run` in "File name too long". Files are named by run key and run id, so two
executions of one run (two coordinators, a `--force` rerun) never write one file, and a record names only its own
execution's files. A record names its
log, predictions and curves relative to the store's folder, so a store moved with its run folder still finds them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.file_names import file_safe

if TYPE_CHECKING:
    from harness.run_spec import RunSpec

_RECORD_SUFFIX = ".json"


def runs_folder(store: Path) -> Path:
    """`<name>-runs/` beside the store `<name>.sqlite`: two stores in one folder never ingest each other's runs."""
    return store.parent / f"{store.stem}-runs"


def suite_folder(runs: Path, suite: str) -> Path:
    return runs / file_safe(suite)


def records_folder(runs: Path, suite: str) -> Path:
    return suite_folder(runs, suite) / "records"


def slurm_folder(runs: Path, suite: str) -> Path:
    return suite_folder(runs, suite) / "slurm"


def results_table(runs: Path, suite: str) -> Path:
    return suite_folder(runs, suite) / "results.md"


def stored_file(store: Path, named: str) -> Path:
    """The file a record of `store` names (its log, predictions or curves)."""
    return store.parent / named


def record_file_name(run_key: str, run_id: str) -> str:
    return f"{run_key}.{run_id}{_RECORD_SUFFIX}"


def execution_of_record_file(name: str) -> tuple[str, str]:
    """(run key, run id) that a record file's name claims, read without opening it."""
    run_key, _, rest = name.partition(".")
    return run_key, rest.removesuffix(_RECORD_SUFFIX)


@dataclass(frozen=True)
class ExecutionFiles:
    """The files one execution of a run writes in the run folder `runs`."""

    runs: Path
    suite: str
    run_key: str
    run_id: str

    @classmethod
    def of(cls, runs: Path, spec: "RunSpec") -> "ExecutionFiles":
        return cls(runs, spec.suite, spec.run_key, spec.run_id)

    @property
    def log(self) -> Path:
        return self._file("logs", ".log")

    @property
    def predictions(self) -> Path:
        return self._file("predictions", ".parquet")

    @property
    def curves(self) -> Path:
        return self._file("curves", ".parquet")

    @property
    def record(self) -> Path:
        return records_folder(self.runs, self.suite) / record_file_name(self.run_key, self.run_id)

    def named_in_record(self, path: Path) -> str:
        """How a record names `path`: relative to the store's folder (see `stored_file`)."""
        return str(path.relative_to(self.runs.parent))

    def _file(self, folder: str, suffix: str) -> Path:
        return suite_folder(self.runs, self.suite) / folder / f"{self.run_key}.{self.run_id}{suffix}"
