"""Rows from the local files people keep Hugging Face data in, read through the `datasets` library.

Five formats: a `save_to_disk` folder (``saved``), Parquet, JSONL and CSV files (a file, or a folder of
them), and a Hub dataset already in the local `datasets` cache (``hub``). Nothing is downloaded: the
cache is read in offline mode, and a dataset missing from it is a `DataError` that says how to put it
there. A family names the fields it reads (`Field`); a suite maps each to the file's column
(``fields: {question: problem}`` reads the family's `question` from the column `problem`), and an
unmapped field is read from the column of its own name. `datasets` is imported only when rows are read,
so listing and validating suites stay light.

A file format's identity is its files' contents (a `path` argument is hashed like every loader's); a
Hub dataset's is its cached files, hashed when the suite is planned (`hub_fingerprint`).
"""
from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import DataError
from harness.fingerprint import folder_sha256

if TYPE_CHECKING:
    import datasets

FILE_FORMATS = {"parquet": ("parquet", (".parquet",)), "jsonl": ("json", (".jsonl", ".json")),
                "csv": ("csv", (".csv",))}   # format -> (datasets' builder, file suffixes in a folder)
FORMATS = ("saved", *FILE_FORMATS, "hub")
# Arrow types a Python type may arrive as (`datasets.Value.dtype`); a column of nulls fits every field.
_DTYPES = {str: ("string", "large_string"), bool: ("bool",),
           int: tuple(f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)),
           float: ("float16", "float32", "float64")}
POPULATE_HINT = ("Fill the cache once where the Hub can be reached: python -c \"import datasets; "
                 "datasets.load_dataset('{repo}', {config}cache_dir='{cache}')\", then copy that folder here.")


@dataclass(frozen=True)
class Field:
    """A field a family reads from each row: the Python types its column may hold, and whether rows need it."""

    name: str
    types: tuple[type, ...] = (str,)
    required: bool = True


@dataclass(frozen=True)
class TableSource:
    """Where the rows are: a suite's loader arguments, checked (`table_source`)."""

    format: str
    path: str | None = None
    repo: str | None = None
    config: str | None = None
    split: str | None = None
    cache_dir: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The file or Hub repository, as errors name it."""
        return self.path or self.repo or ""

    @property
    def label(self) -> str:
        """The file's name or the Hub repository, as a report names the data."""
        return Path(self.path).name if self.path else self.name


def table_source(format: Any, path: Any = None, *, repo: Any = None, config: Any = None, split: Any = None,
                 cache_dir: Any = None, fields: Any = None) -> TableSource:
    """Check a loader's arguments: a known format, a path (file formats) or a repo (`hub`), text values."""
    if format not in FORMATS:
        raise DataError(f"unknown format {format!r}", field="args.format",
                        hint=f"Use one of: {', '.join(FORMATS)}.")
    for name, value in (("path", path), ("repo", repo), ("config", config), ("split", split),
                        ("cache_dir", cache_dir)):
        if value is not None and not isinstance(value, str):
            raise DataError(f"{name} must be a string, got {type(value).__name__} {value!r}", field=f"args.{name}")
    if format == "hub" and (not repo or path is not None):
        raise DataError("format 'hub' reads a cached Hub dataset: give repo (e.g. openai/gsm8k), not path",
                        field="args.repo")
    if format != "hub" and (not path or repo is not None):
        raise DataError(f"format '{format}' reads local files: give path, not repo", field="args.path")
    fields = {} if fields is None else fields
    if not isinstance(fields, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in fields.items()):
        raise DataError(f"fields must map field names to column names, got {fields!r}", field="args.fields",
                        hint="e.g. fields: {question: problem, solution: worked_answer}")
    return TableSource(format, path, repo, config, split, cache_dir, dict(fields))


def read_rows(source: TableSource, schema: Sequence[Field]) -> list[dict[str, Any]]:
    """Each row as {field: value} for the fields of `schema` its columns hold (every required one)."""
    known = {f.name for f in schema}
    unknown = sorted(set(source.fields) - known)
    if unknown:
        raise DataError(f"fields maps {unknown[0]!r}, which this loader does not read", file=source.name,
                        field=f"args.fields.{unknown[0]}", hint=f"It reads: {', '.join(sorted(known))}.")
    dataset = _load(source)
    columns = _columns(source, schema, dataset)
    table = dataset.select_columns(sorted(set(columns.values())))
    return [{name: row[column] for name, column in columns.items()} for row in table.to_list()]


def _columns(source: TableSource, schema: Sequence[Field], dataset: datasets.Dataset) -> dict[str, str]:
    """{field: column} for the fields present, each column's type checked against its field's types."""
    columns: dict[str, str] = {}
    for wanted in schema:
        column = source.fields.get(wanted.name, wanted.name)
        if column not in dataset.column_names:
            if wanted.required or wanted.name in source.fields:
                raise DataError(f"no column '{column}' for the field '{wanted.name}'", file=source.name,
                                field=f"args.fields.{wanted.name}",
                                hint=f"The columns are: {', '.join(dataset.column_names)}. Map the field to one "
                                     f"with fields: {{{wanted.name}: <column>}}.")
            continue
        dtype = getattr(dataset.features[column], "dtype", type(dataset.features[column]).__name__)
        allowed = {"null"}.union(*(_DTYPES[t] for t in wanted.types))
        if dtype not in allowed:
            expected = " or ".join(t.__name__ for t in wanted.types)
            raise DataError(f"column '{column}' holds {dtype}, where the field '{wanted.name}' needs {expected}",
                            file=source.name, field=f"args.fields.{wanted.name}",
                            hint="Map the field to a column of that type.")
        columns[wanted.name] = column
    return columns


def _load(source: TableSource) -> datasets.Dataset:
    if source.format == "hub":
        return _hub_split(source)
    path = Path(source.path or "")
    if not path.exists():
        raise DataError("file not found", file=path, field="args.path", hint="Check the path under the data root.")
    if source.format == "saved":
        return _saved_split(source, path)
    return _file_table(source, path)


def _file_table(source: TableSource, path: Path) -> datasets.Dataset:
    """A Parquet/JSONL/CSV file (or folder of them) as one split, its Arrow cache in a folder removed after."""
    import datasets

    builder, suffixes = FILE_FORMATS[source.format]
    files = [path] if path.is_file() else sorted(p for p in path.iterdir() if p.suffix in suffixes)
    if not files:
        raise DataError(f"the folder holds no {' or '.join(suffixes)} file", file=path, field="args.path")
    with tempfile.TemporaryDirectory(prefix="harness-hf-") as scratch:
        try:
            return datasets.load_dataset(builder, data_files=[str(f) for f in files], split="train",
                                         cache_dir=scratch, keep_in_memory=True,
                                         features=_csv_as_text(files[0]) if source.format == "csv" else None)
        except (datasets.exceptions.DatasetGenerationError, ValueError, OSError) as exc:
            cause = exc.__cause__ or exc
            raise DataError(f"cannot be read as {source.format}: {cause}", file=path, field="args.format",
                            hint=f"Check the file is {source.format}, or name its format.") from None


def _csv_as_text(path: Path) -> datasets.Features:
    """Every column of the header as text: CSV has no types, and an inferred int64 would turn an answer "0.50"
    into 0.5; the family parses what it needs."""
    import datasets

    with path.open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle), [])
    return datasets.Features({name: datasets.Value("string") for name in header})


def _saved_split(source: TableSource, path: Path) -> datasets.Dataset:
    import datasets

    try:
        saved = datasets.load_from_disk(str(path), keep_in_memory=True)
    except FileNotFoundError as exc:
        raise DataError(f"not a save_to_disk folder ({exc})", file=path, field="args.path",
                        hint="Write it with Dataset.save_to_disk or DatasetDict.save_to_disk.") from None
    if isinstance(saved, datasets.DatasetDict):
        return saved[_split_name(source, list(saved))]
    if source.split is not None and saved.split is not None and str(saved.split) != source.split:
        raise DataError(f"no split '{source.split}'", file=path, field="args.split",
                        hint=f"The folder holds the split: {saved.split}.")
    return saved


def _split_name(source: TableSource, splits: Sequence[str]) -> str:
    """The suite's split, checked against those there are; left out, the only one there is."""
    if source.split is None and len(splits) == 1:
        return splits[0]
    if source.split is None or source.split not in splits:
        what = f"no split '{source.split}'" if source.split else "several splits: name one"
        raise DataError(what, file=source.name, field="args.split", hint=f"The splits are: {', '.join(splits)}.")
    return source.split


def hf_cache_root(cache_dir: str | None) -> Path:
    """`cache_dir`, else where `datasets` caches by default ($HF_DATASETS_CACHE, $HF_HOME/datasets, ...)."""
    if cache_dir:
        return Path(cache_dir).expanduser()
    if os.environ.get("HF_DATASETS_CACHE"):
        return Path(os.environ["HF_DATASETS_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home, "datasets").expanduser()


def hub_repo_folder(repo: str, root: Path) -> Path:
    """Where `datasets` caches the Hub repository `repo` under the cache `root` (`<owner>___<name>`)."""
    owner, _, name = repo.rpartition("/")
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()  # as `datasets.naming.camelcase_to_snakecase`
    return root / "___".join(filter(None, (owner, snake)))


def hub_cache_folder(source: TableSource) -> Path:
    """The newest cached copy of a Hub dataset (`<cache>/<owner>___<name>/<config>/<version>/<hash>`)."""
    root = hf_cache_root(source.cache_dir)
    folder = hub_repo_folder(source.repo or "", root)
    copies = [p.parent for p in folder.glob(f"{source.config or '*'}/*/*/dataset_info.json")]
    if not copies:
        config = f"'{source.config}', " if source.config else ""
        cached = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        found = f" (configs cached: {', '.join(cached)})" if cached else ""
        raise DataError(f"Hub dataset '{source.repo}' is not in the cache {root}{found}; it is never downloaded "
                        f"at run time", field="args.repo",
                        hint=POPULATE_HINT.format(repo=source.repo, config=config, cache=root))
    configs = {p.parents[1].name for p in copies}
    if len(configs) > 1:
        raise DataError(f"the cache holds several configs of '{source.repo}': name one", field="args.config",
                        hint=f"The configs are: {', '.join(sorted(configs))}.")
    return max(copies, key=lambda p: p.stat().st_mtime)


def _hub_split(source: TableSource) -> datasets.Dataset:
    folder = hub_cache_folder(source)
    splits = json.loads((folder / "dataset_info.json").read_text(encoding="utf-8")).get("splits") or {}
    split = _split_name(source, list(splits))  # checked before `datasets` reads anything
    with _offline() as datasets:
        return datasets.load_dataset(source.repo, folder.parents[1].name, split=split,
                                     cache_dir=str(hf_cache_root(source.cache_dir)),
                                     download_mode="reuse_dataset_if_exists")


@contextlib.contextmanager
def _offline() -> Iterator[Any]:
    """`datasets` with the Hub switched off for this call, whatever $HF_DATASETS_OFFLINE said at its import."""
    import datasets

    before = datasets.config.HF_HUB_OFFLINE
    datasets.config.HF_HUB_OFFLINE = True
    try:
        yield datasets
    finally:
        datasets.config.HF_HUB_OFFLINE = before


def hub_fingerprint(args: Mapping[str, Any]) -> str | None:
    """The hash of a cached Hub dataset's files for loader arguments `format: hub` (None for any other)."""
    if args.get("format") != "hub":
        return None
    source = table_source("hub", args.get("path"), repo=args.get("repo"), config=args.get("config"),
                          split=args.get("split"), cache_dir=args.get("cache_dir"), fields=args.get("fields"))
    return folder_sha256(hub_cache_folder(source))
