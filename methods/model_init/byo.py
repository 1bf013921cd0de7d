"""Bring your own corpus: one JSON object per line,

    {"text": "the capital of france is paris", "split": "train"}
    {"text": "q : what is 2 plus 3 ? a : 5", "split": "test"}

`text` (at least two whitespace-separated words; the last is the word a test line is scored on), an
optional `split` (train, dev or test; without one, every tenth line is dev and the next tenth test) and an
optional `task` (the line's task type, whose majority answer is its accuracy floor, and a training line's group
in a balanced stream; default "text"). The source model is pre-trained on its train lines, the students on the
same. Blank lines are skipped; every mistake is a
`DataError` naming the file, the line and the field.
"""
from __future__ import annotations

from pathlib import Path

from harness import DataError
from harness.json_lines import json_objects
from methods.model_init.text import TextCorpus

_KEYS = {"text", "split", "task"}
_SPLITS = ("train", "dev", "test")


def _split(record: dict, path: Path, number: int) -> str:
    split = record.get("split", _SPLITS[2 if number % 10 == 0 else 1 if number % 10 == 9 else 0])
    if split not in _SPLITS:
        raise DataError(f"'split' must be one of {', '.join(_SPLITS)}, got {split!r}", file=path, line=number,
                        field="split", hint="Leave it out to split every tenth line off as dev and test.")
    return str(split)


def read_corpus(path: Path) -> TextCorpus:
    """The file's lines by split, in file order; each split must hold at least one line."""
    lines: dict[str, list[str]] = {name: [] for name in _SPLITS}
    tasks: dict[str, list[str]] = {name: [] for name in _SPLITS}
    ids: list[str] = []
    for number, record in json_objects(path, _KEYS):
        text = record.get("text")
        if not isinstance(text, str) or len(text.split()) < 2:
            raise DataError(f"'text' must be a string of at least two words, got {text!r}", file=path, line=number,
                            field="text", hint="Give the line's words separated by spaces; the last is scored.")
        split = _split(record, path, number)
        task = record.get("task", "text")
        if not isinstance(task, str) or not task.strip():
            raise DataError(f"'task' must be a non-empty string, got {task!r}", file=path, line=number, field="task",
                            hint="Name the line's task type, or leave 'task' out.")
        lines[split].append(" ".join(text.split()))
        tasks[split].append(task.strip())
        if split == "test":
            ids.append(f"line-{number}")
    empty = [name for name in _SPLITS if not lines[name]]
    if empty:
        raise DataError(f"holds no {empty[0]} lines", file=path, field="split",
                        hint="Mark some lines with \"split\": \"" + empty[0] + "\" (or give at least ten lines).")
    return TextCorpus.of(lines["train"], lines["dev"], lines["test"], ids, tasks["dev"], tasks["test"], tasks["train"])
