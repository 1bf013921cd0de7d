"""lm-eval's task index (tasks, groups, tags and the data each task reads), cached on disk.

Building lm-eval's `TaskManager` index parses every task YAML (about 9 s per process on 2 cores), too slow
for `harness validate`. The names it finds, each task's `dataset_path`/`dataset_name` and each group's or
tag's members are written once to a JSON file keyed by lm-eval's version and, for a folder of the user's
YAMLs, the folder's path and its files' modification times: an edited YAML builds a new index.
"""
from __future__ import annotations

import difflib
import json
import os
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from harness.errors import DataError
from harness.fingerprint import digest

INDEX_ENV = "HARNESS_LM_EVAL_INDEX"


def index_root() -> Path:
    """$HARNESS_LM_EVAL_INDEX, else ~/.cache/iclr26-harness/lm-eval-index."""
    return Path(os.environ.get(INDEX_ENV) or Path.home() / ".cache" / "iclr26-harness" / "lm-eval-index")


@dataclass(frozen=True)
class TaskIndex:
    """Every name lm-eval knows (in one folder of YAMLs, or its built-in tasks): kind, data, members."""

    entries: dict[str, dict[str, Any]]
    folder: Path | None

    def leaves(self, name: str) -> list[str]:
        """The tasks `name` runs: itself for a task, its members (recursively) for a group or tag."""
        entry = self.entries[name]
        if entry["kind"] == "task":
            return [name]
        return [leaf for member in entry["members"] if member in self.entries and member != name
                for leaf in self.leaves(member)]

    def check(self, names: list[str]) -> None:
        """A `DataError` for the first name lm-eval does not know, with the closest known names."""
        for name in names:
            if name not in self.entries:
                close = difflib.get_close_matches(name, self.entries, n=3, cutoff=0.6)
                where = f"the folder {self.folder}" if self.folder else f"lm-eval {version('lm_eval')}'s tasks"
                hint = f"Did you mean {' or '.join(repr(c) for c in close)}?" if close else \
                    "`python -m lm_eval ls tasks` lists lm-eval's tasks; a folder of YAMLs goes in `path`."
                raise DataError(f"unknown lm-eval task '{name}' in {where}", field="args.task", hint=hint)


def _folder_key(folder: Path | None) -> dict[str, Any]:
    if folder is None:
        return {}
    stamps = {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in sorted(folder.rglob("*")) if p.is_file()}
    return {"folder": str(folder), "mtimes": stamps}


def task_index(folder: Path | None = None) -> TaskIndex:
    """The index of `folder` (a folder of task YAMLs; None: lm-eval's built-in tasks), built once and cached."""
    folder = folder.resolve() if folder is not None else None
    path = index_root() / f"{digest({'lm_eval': version('lm_eval'), **_folder_key(folder)})}.json"
    if path.is_file():
        return TaskIndex(json.loads(path.read_text(encoding="utf-8")), folder)
    entries = _build(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8") as out:
        json.dump(entries, out)
    os.replace(out.name, path)  # atomic: a concurrent reader sees a whole index or none
    return TaskIndex(entries, folder)


def _build(folder: Path | None) -> dict[str, dict[str, Any]]:
    """lm-eval's own index, reduced to what validation reads. A user's folder is indexed alone (lm-eval's
    built-in tasks are not loaded beside it), as `include_defaults=False` runs it."""
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(folder) if folder else None, include_defaults=folder is None)
    entries: dict[str, dict[str, Any]] = {}
    tags: dict[str, list[str]] = {}
    for name, entry in manager.task_index.items():
        kind = entry.kind.name.lower()
        cfg = entry.cfg or {}
        for tag in entry.tags:
            tags.setdefault(tag, []).append(name)
        if kind in ("task", "py_task"):
            entries[name] = {"kind": "task", "dataset_path": cfg.get("dataset_path"),
                             "dataset_name": cfg.get("dataset_name")}
        elif kind == "group":
            members = cfg.get("task", [])
            entries[name] = {"kind": "group",
                             "members": [m if isinstance(m, str) else m.get("task") for m in members]}
        else:
            entries[name] = {"kind": "tag", "members": []}
    for tag, members in tags.items():
        if entries.get(tag, {}).get("kind") != "task":  # a task's own name among its tags names the task
            entries[tag] = {"kind": "tag", "members": sorted(m for m in members if m != tag)}
    return entries
