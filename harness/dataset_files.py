"""Where dataset files live (the data root) and what identifies a dataset (its fingerprint).

A loader argument named `path` or ending in `_path` is a file (or a folder of files, such
as a TU dataset's raw text files) under the data root: it is resolved here, checked to
exist, and its content hash enters the fingerprint, so a changed file means new runs
while a moved data root does not. Arguments `format: hub, repo: ...` name a Hub dataset in the
local cache (`harness.hf_datasets`): its cached files are hashed the same way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import DataError
from harness.fingerprint import digest, file_sha256, folder_sha256
from harness.hf_datasets import hub_fingerprint

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


def under_root(value: Any, root: Path) -> Path:
    """A `path` argument as a path: `~` expanded, a relative one taken under the data root `root`."""
    path = Path(str(value)).expanduser()
    return path if path.is_absolute() else root / path


def _existing_path(dataset: str, key: str, value: Any, root: Path) -> Path:
    full = under_root(value, root)
    if not (full.is_file() or full.is_dir()):
        raise DataError(
            f"dataset '{dataset}': file '{value}' not found (expected {full.absolute()})",
            field=f"datasets.{dataset}.args.{key}",
            hint=f"Put the file there, or point the data root at the folder holding it "
                 f"with --data-root or ${DATA_ROOT_ENV} (now {root.absolute()}).",
        )
    return full.absolute()
