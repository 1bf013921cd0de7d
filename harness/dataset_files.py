"""Where dataset files live (the data root) and what identifies a dataset (its fingerprint).

A loader argument named `path` or ending in `_path` is a file (or a folder of files, such
as a TU dataset's raw text files) under the data root: it is resolved here, checked to
exist, and its content hash enters the fingerprint, so a changed file means new runs
while a moved data root does not. Arguments `format: hub, repo: ...` name a Hub dataset in the
local cache (`harness.hf_datasets`): its cached files are hashed the same way.

Where a path argument may lead: a relative one names a file under the data root, and must stay there once `..`
and symbolic links are followed (`graphs/../../etc/passwd`, or a link in the data root to a file elsewhere, is
refused naming the argument): a reader of the suite sees a file of the data root, and a suite moved to another
machine finds its data by moving the data root. An absolute path, or one starting with `~`, is taken as written:
the suite's author chose that file. Either way it must be a regular file or a folder, never a fifo, device or
socket, which would block the fingerprint's read. A loader's own error on a file is reported without its message,
which can quote the file (numpy's once printed the first line of a link to /etc/passwd).
"""
from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import DataError
from harness.fingerprint import digest, file_sha256, folder_sha256
from harness.hf_datasets import hub_fingerprint
from harness.regular_files import file_kind

DATA_ROOT_ENV = "HARNESS_DATA_ROOT"
DEFAULT_DATA_ROOT = Path("data")


def data_root(explicit: str | Path | None = None) -> Path:
    """`--data-root` if given, else $HARNESS_DATA_ROOT, else ./data."""
    if explicit is not None:
        return Path(explicit)
    return Path(os.environ.get(DATA_ROOT_ENV) or DEFAULT_DATA_ROOT)


def is_path_arg(name: str) -> bool:
    return name == "path" or name.endswith("_path")


@dataclass(frozen=True)
class ResolvedDataset:
    """A suite's dataset entry with file arguments made absolute, and its fingerprint."""

    name: str
    loader: str
    args: dict[str, Any]
    load_args: dict[str, Any]
    split: dict[str, Any]
    fingerprint: str


def resolve_dataset(name: str, loader: str, args: dict[str, Any], split: dict[str, Any], root: Path) -> ResolvedDataset:
    load_args: dict[str, Any] = {}
    content: dict[str, Any] = {}
    for key, value in args.items():
        if is_path_arg(key):
            path = _existing_path(name, key, value, root)
            load_args[key] = str(path)
            content[key] = folder_sha256(path) if path.is_dir() else file_sha256(path)
        else:
            load_args[key] = value
            content[key] = value
    identity = {"loader": loader, "args": content, "split": split}
    cached = hub_fingerprint(args)
    fingerprint = digest(identity if cached is None else identity | {"hub_cache": cached})
    return ResolvedDataset(name, loader, dict(args), load_args, dict(split), fingerprint)


def under_root(dataset: str, key: str, value: Any, root: Path) -> Path:
    """A `path` argument as a path: `~` expanded, a relative one taken under the data root `root` and kept inside it
    (the module's docstring); a `DataError` naming the argument otherwise."""
    if "\0" in str(value):
        raise DataError(f"dataset '{dataset}': {key} holds a NUL character, which no path can hold",
                        field=_field(dataset, key), hint="Remove it.")
    try:
        path = Path(str(value)).expanduser()
    except RuntimeError:  # `~nouser/x`, or `~` where no home folder is known
        raise DataError(f"dataset '{dataset}': {key} '{value}' starts with '~', but no home folder is known for it "
                        "here", field=_field(dataset, key),
                        hint="Write the full path, or one relative to the data root.") from None
    if path.is_absolute():
        return path
    full = root / path
    real, real_root = os.path.realpath(full), os.path.realpath(root)
    if os.path.commonpath([real, real_root]) != real_root:
        raise DataError(f"dataset '{dataset}': {key} '{value}' leads out of the data root {root.absolute()} "
                        f"(to {real})", field=_field(dataset, key),
                        hint="A relative path names a file under the data root: write the absolute path to use a "
                             "file elsewhere, or put the file under the data root.")
    return full


def _existing_path(dataset: str, key: str, value: Any, root: Path) -> Path:
    full = under_root(dataset, key, value, root)
    try:
        mode = full.stat().st_mode
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG):
            raise DataError(f"dataset '{dataset}': {key} {full.absolute()} cannot be read ({exc.strerror})",
                            field=_field(dataset, key), hint="Check the file's permissions.") from None
        raise DataError(
            f"dataset '{dataset}': file '{value}' not found (expected {full.absolute()})",
            field=_field(dataset, key),
            hint=f"Put the file there, or point the data root at the folder holding it "
                 f"with --data-root or ${DATA_ROOT_ENV} (now {root.absolute()}).",
        ) from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise DataError(f"dataset '{dataset}': {key} {full.absolute()} is {file_kind(mode)}, not a data file or "
                        "folder", field=_field(dataset, key), hint="Point it at a regular file, or a folder of them.")
    return full.absolute()


def load_error(dataset: ResolvedDataset, exc: Exception) -> DataError:
    """What a dataset's loader raising `exc` tells the user: the dataset and its arguments, never a message that
    may quote a data file (the module's docstring)."""
    field = f"datasets.{dataset.name}.args"
    files = {key: value for key, value in dataset.load_args.items() if is_path_arg(key)}
    if isinstance(exc, MemoryError):
        detail = f" ({exc})" if str(exc) else ""
        return DataError(f"dataset '{dataset.name}' does not fit in memory: loading it with {_shown(dataset.args)} "
                         f"failed{detail}", field=field,
                         hint="Give the loader smaller sizes, or run it on a machine with more memory.")
    if isinstance(exc, IsADirectoryError) and (key := _named(files, exc.filename)) is not None:
        return DataError(f"dataset '{dataset.name}': {key} {files[key]} is a folder, but loader '{dataset.loader}' "
                         "reads a file", field=f"{field}.{key}", hint=f"Point {key} at the file itself.")
    if isinstance(exc, OSError) and exc.errno is not None:
        where = f" ({exc.filename})" if exc.filename else ""
        return DataError(f"dataset '{dataset.name}' cannot be loaded: {exc.strerror}{where}", field=field,
                         hint="Check the path arguments and the files' permissions.")
    if files and not isinstance(exc, TypeError):  # a TypeError is a signature mistake: its message quotes no file
        return DataError(f"dataset '{dataset.name}' cannot be loaded: loader '{dataset.loader}' raised "
                         f"{type(exc).__name__} on {_shown(files)}; its message is not shown, as it may quote the "
                         "file", field=field, hint="Check that the file is in the format the loader reads "
                                                   "(`harness ls datasets`).")
    return DataError(f"dataset '{dataset.name}' cannot be loaded: {exc}", field=field,
                     hint="Check the loader's arguments (`harness ls datasets`).")


def _named(files: dict[str, Any], filename: Any) -> str | None:
    """The path argument `filename` is, if any."""
    return next((key for key, value in files.items() if value == filename), None)


def _shown(args: dict[str, Any], longest: int = 60) -> str:
    """`key=value, ...`, each value cut to `longest` characters: a loader argument may be a long list."""
    shown = (f"{key}={text if len(text := repr(value)) <= longest else text[:longest] + '...'}"
             for key, value in args.items())
    return ", ".join(shown) or "no arguments"


def _field(dataset: str, key: str) -> str:
    return f"datasets.{dataset}.args.{key}"
