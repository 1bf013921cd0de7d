"""The dataset entry: which lm-eval tasks (a task, group or tag name, or several) from where, and how.

`lm_eval_task` names tasks among lm-eval's built-in ones or, with `path`, in a folder of the user's task
YAMLs (under the data root; its files' hash enters the fingerprint, so an edited YAML means new runs).
`tiny_task` names the tasks committed in `tiny_tasks/` (the CI suite's). Nothing is loaded here: lm-eval
reads the documents inside the run. `check_selection` is what `validate` and `plan` run (through the task's
`check_dataset`): the names against lm-eval's cached index with a did-you-mean, and
that each task's Hub dataset (a built-in task's or one a user's YAML names) is in the local `datasets` cache,
since runs never download.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import DataError
from harness.hf_datasets import POPULATE_HINT, hf_cache_root, hub_repo_folder
from methods.lm_eval_tasks.task_index import task_index

TINY_TASKS = Path(__file__).with_name("tiny_tasks")
LOCAL_BUILDERS = {"json", "csv", "parquet", "text", "arrow", "pandas", None}  # lm-eval's data from local files


@dataclass(frozen=True)
class TaskSelection:
    """lm-eval tasks to run with one setting: the folder of YAMLs (None: lm-eval's own), shots, limit."""

    tasks: tuple[str, ...]
    folder: Path | None = None
    num_fewshot: int | None = None
    limit: int | None = None
    filter: str | None = None  # the filter the registered metrics read; None: each metric's first filter

    @property
    def label(self) -> str:
        return "+".join(self.tasks)


def lm_eval_task(task: str | list[str], path: str | None = None, num_fewshot: int | None = None,
                 limit: int | None = None, filter: str | None = None) -> TaskSelection:
    """lm-eval tasks by name: built-in ones, or those of the folder of task YAMLs at `path`."""
    return selection(task, Path(path).expanduser() if path is not None else None, num_fewshot, limit, filter)


def tiny_task(task: str | list[str], num_fewshot: int | None = None, limit: int | None = None,
              filter: str | None = None) -> TaskSelection:
    """Tasks of the committed `tiny_tasks/` folder (documents generated in the zo_finetune family's style)."""
    return selection(task, TINY_TASKS, num_fewshot, limit, filter)


def selection(task: Any, folder: Path | None = None, num_fewshot: Any = None, limit: Any = None,
              filter: Any = None) -> TaskSelection:
    """A loader's arguments checked for their types, as a `TaskSelection` (nothing is indexed or read)."""
    names = [task] if isinstance(task, str) else task
    if not names or not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise DataError("task must be an lm-eval task, group or tag name, or a list of them", field="args.task")
    for key, value in (("num_fewshot", num_fewshot), ("limit", limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise DataError(f"{key} must be a whole number >= 0, got {value!r}", field=f"args.{key}")
    if folder is not None and not folder.is_dir():
        raise DataError(f"task folder {folder} does not exist", field="args.path",
                        hint="Point path at a folder of lm-eval task YAMLs under the data root.")
    return TaskSelection(tuple(names), folder, num_fewshot, limit, filter)


def check_selection(chosen: TaskSelection) -> None:
    """The names against lm-eval's (cached) index, and each task's Hub data (built in or in a user's YAML) against
    the local cache."""
    index = task_index(chosen.folder)
    index.check(list(chosen.tasks))
    for name in chosen.tasks:
        for leaf in index.leaves(name):
            check_cached(leaf, index.entries[leaf])


def check_cached(task: str, entry: Mapping[str, Any]) -> None:
    """A `DataError` naming the cache folder when a task's Hub dataset has never been cached here (the cache
    lm-eval's `datasets.load_dataset` reads: $HF_DATASETS_CACHE, else `datasets`' default)."""
    repo = entry.get("dataset_path")
    if repo in LOCAL_BUILDERS or Path(str(repo)).expanduser().exists():
        return
    root = hf_cache_root(None)
    folder = hub_repo_folder(str(repo), root)
    if not folder.is_dir():
        config = f"'{entry['dataset_name']}', " if entry.get("dataset_name") else ""
        raise DataError(f"lm-eval task '{task}' reads the Hub dataset '{repo}', which is not in the local "
                        f"datasets cache (looked in {folder}); runs never download", field="args.task",
                        hint=POPULATE_HINT.format(repo=repo, config=config, cache=root))
