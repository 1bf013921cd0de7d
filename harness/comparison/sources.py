"""One side of a comparison as a `records_frame`: a store, an export, or an export committed at a git ref.

A side is named the way a user has it at hand: the store `harness run` wrote, the CSV or
Parquet file `harness export` wrote, or `REF:PATH`, that export as committed at a git ref
of the current repository (a baseline kept in version control needs no artefact storage).
"""
from __future__ import annotations

import io
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from harness.comparison.errors import ComparisonError
from harness.record_json import RecordJson
from harness.results import ENVIRONMENT_COLUMNS, json_mapping, records_frame
from harness.spreadsheet_cells import unquoted_text
from harness.store import Store
from harness.suite_runs import newest_positions

REQUIRED_COLUMNS = ("suite", "method", "dataset", "seed", "status")
_OPTIONAL_COLUMNS = (*ENVIRONMENT_COLUMNS, "metric_names")
_TEXT_COLUMNS = ("run_id", "run_key", "suite", "method", "dataset", "status", "error", "device", "git_sha",
                 *ENVIRONMENT_COLUMNS)  # read as text: a hex fingerprint may look like a number
_EXPORT_SUFFIXES = (".csv", ".parquet")
StoreSelection = Callable[[Store], Iterable[RecordJson]]
_HINT = ("Give a store (.sqlite), a file written by `harness export` (.csv, .parquet), or REF:PATH; "
         "or two pytest-benchmark files (.json, a .benchmarks folder).")


def load_results(source: str, suite_name: str | None = None, repo: Path | None = None,
                 select: StoreSelection | None = None) -> pd.DataFrame:
    """Runs of `source`, newest per (suite, method, dataset, seed), optionally of one suite only.

    `select` picks a store's runs (a suite's planned run keys, see `harness.suite_runs`); without it a
    store's runs are those stored under `suite_name`. An export is always filtered by `suite_name`.
    """
    kind = side_kind(source)
    path = Path(source)
    if kind == "git":
        ref, _, inner = source.partition(":")
        frame = _read_export(git_show(ref, inner, repo or Path.cwd()), inner, source)
    elif kind == "export":
        frame = read_export(path)
    else:
        with Store(path, read_only=True) as store:
            records = select(store) if select else store.records(suite=suite_name)
            return side_of_records(records, source, suite_name)
    return _as_side(frame, source, suite_name)


def side_kind(source: str) -> Literal["git", "export", "store"]:
    """What a side names: an export at a git ref (REF:PATH), an export file, or a store; an error if none."""
    path = Path(source)
    if not path.exists() and ":" in source:
        return "git"
    if not path.exists():
        raise ComparisonError(f"{source} does not exist", hint=_HINT)
    return "export" if path.suffix.lower() in _EXPORT_SUFFIXES else "store"


def side_of_records(records: Iterable[RecordJson], source: str, suite_name: str | None = None) -> pd.DataFrame:
    """Stored run records as a side."""
    return _as_side(records_frame(records), source, suite_name)


def _as_side(frame: pd.DataFrame, source: str, suite_name: str | None) -> pd.DataFrame:
    """`frame`'s runs (of `suite_name`), the newest of each (suite, method, dataset, seed) only."""
    for column in _OPTIONAL_COLUMNS:
        if column not in frame.columns:
            frame[column] = None
    if suite_name is not None:
        frame = frame[frame["suite"] == suite_name]
    frame = frame.assign(metric_names=frame["metric_names"].map(_json_mapping))
    frame = frame.iloc[newest_positions(frame.to_dict("records"))]
    _check_one_suite_per_cell(frame, source)
    if frame.empty:
        if suite_name is None:
            raise ComparisonError(f"{source} holds no runs", hint="Compare two sides that both have runs.")
        raise ComparisonError(f"{source} holds no runs of suite '{suite_name}'",
                              hint="Compare two sides that both have runs. Runs are shared between suites: "
                                   "--suite FILE selects the runs the suite plans, whichever suite executed them.")
    return frame.reset_index(drop=True)


def read_export(path: Path) -> pd.DataFrame:
    """Every row of an export file as written (runs of several suites, shared runs included)."""
    return _read_export(_file_bytes(path), str(path), str(path))


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ComparisonError(f"{path} cannot be read ({exc.strerror})", hint=_HINT) from None


def git_show(ref: str, path: str, repo: Path) -> bytes:
    """The bytes of `path` as committed at `ref`; git's own message when it cannot say."""
    try:
        done = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=repo, capture_output=True, check=False)
    except OSError as exc:
        raise ComparisonError(f"cannot run git to read {ref}:{path} ({exc})", hint=_HINT) from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().removeprefix("fatal: ")
        raise ComparisonError(f"cannot read {ref}:{path} from git in {repo}: {message}", hint=_HINT)
    return done.stdout


def _read_export(data: bytes, name: str, source: str) -> pd.DataFrame:
    suffix = Path(name).suffix.lower()
    if suffix not in _EXPORT_SUFFIXES:
        raise ComparisonError(f"{source} is not a .csv or .parquet export", hint=_HINT)
    try:
        if suffix == ".csv":
            frame = unquoted_text(pd.read_csv(io.BytesIO(data), dtype={c: "string" for c in _TEXT_COLUMNS}))
        else:
            frame = pd.read_parquet(io.BytesIO(data))
    except (ValueError, OSError, UnicodeDecodeError) as exc:  # pandas' and pyarrow's parse errors are ValueErrors
        raise ComparisonError(f"{source} cannot be read as {suffix[1:]} ({exc})", hint=_HINT) from None
    absent = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if absent:
        raise ComparisonError(f"{source} lacks the column(s) {', '.join(absent)} of a results export",
                              hint="Write it with `harness export`.")
    return frame


def _json_mapping(value: Any) -> dict[str, Any]:
    try:
        return json_mapping(value)
    except ValueError:
        raise ComparisonError(f"metric_names cell {value!r} is not JSON",
                              hint="Write it with `harness export`.") from None


def _check_one_suite_per_cell(frame: pd.DataFrame, source: str) -> None:
    """Two suites with a run of the same (method, dataset, seed) would mix in one cell."""
    clash = frame[frame.duplicated(["method", "dataset", "seed"], keep=False)]
    if not clash.empty:
        suites = ", ".join(sorted(clash["suite"].astype(str).unique()))
        raise ComparisonError(f"{source} holds runs of the same method, dataset and seed from several suites "
                              f"({suites})", hint="Pick one with --suite-name.")
