"""Bring your own answers: a JSONL file of your model's answers to exported puzzles (`export`), scored offline.

One JSON object per line: `id` (the puzzle's id, e.g. "maze-easy-s0-0007"), `answer` (the raw text your model
wrote; the family's extraction finds the answer in it), and optionally `sample` (0, 1, ...: the order of several
answers to one puzzle, for pass@k and best-of-k; default 0), `score` (your model's confidence in the answer,
e.g. its mean log-probability, for best-of-k) and `images` (paths of the intermediate images it generated,
relative to the file's folder). Blank lines are skipped. Every mistake is a `DataError` naming the file and line.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import DataError
from harness.json_lines import json_object

_ID = re.compile(r"^(?P<kind>[a-z]+)-(?P<difficulty>[a-z]+)-s(?P<seed>\d+)-(?P<index>\d{4,})$")
_KEYS = {"id", "answer", "sample", "score", "images"}


@dataclass(frozen=True)
class RecordedAnswer:
    sample: int
    answer: str
    score: float
    images: int


@dataclass(frozen=True)
class RecordedAnswers:
    """Every answer of the file by puzzle id, in sample order."""

    path: str
    by_puzzle: dict[str, tuple[RecordedAnswer, ...]]


def read_answers(path: Path, kind: str, difficulty: str, count: int) -> RecordedAnswers:
    """The answers in `path` to puzzles of `kind` at `difficulty` (indices below `count`)."""
    answers: dict[str, dict[int, RecordedAnswer]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot be read: {exc}", file=path) from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = json_object(line, path, number, _KEYS)
        puzzle = _puzzle(record, path, number, kind, difficulty, count)
        sample = record.get("sample", 0)
        if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
            raise DataError(f"sample must be an integer >= 0, got {sample!r}", file=path, line=number, field="sample")
        if sample in answers.setdefault(puzzle, {}):
            raise DataError(f"puzzle '{puzzle}' has sample {sample} twice", file=path, line=number, field="sample",
                            hint="Number several answers to one puzzle 0, 1, 2, ...")
        answers[puzzle][sample] = RecordedAnswer(sample, _text(record, path, number), _score(record, path, number),
                                                 _images(record, path, number))
    return RecordedAnswers(str(path), {puzzle: tuple(by_sample[s] for s in sorted(by_sample))
                                       for puzzle, by_sample in answers.items()})


def _puzzle(record: dict[str, Any], path: Path, number: int, kind: str, difficulty: str, count: int) -> str:
    puzzle = record.get("id")
    if not isinstance(puzzle, str):
        raise DataError("no puzzle 'id' (a string)", file=path, line=number, field="id")
    match = _ID.match(puzzle)
    if match is None:
        raise DataError(f"'{puzzle}' is not a puzzle id", file=path, line=number, field="id",
                        hint="Ids look like maze-easy-s0-0007: task, difficulty, seed, index (export writes them).")
    if (match["kind"], match["difficulty"]) != (kind, difficulty) or int(match["index"]) >= count:
        raise DataError(f"puzzle '{puzzle}' is not in this dataset ({kind} {difficulty}, {count} per seed)",
                        file=path, line=number, field="id",
                        hint="Point each dataset at the answers to its own puzzles.")
    return puzzle


def _text(record: dict[str, Any], path: Path, number: int) -> str:
    answer = record.get("answer")
    if not isinstance(answer, str):
        raise DataError(f"'answer' must be the model's text (a string), got {answer!r}", file=path, line=number,
                        field="answer")
    return answer


def _score(record: dict[str, Any], path: Path, number: int) -> float:
    score = record.get("score")
    if score is None:
        return math.nan
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise DataError(f"'score' must be a finite number, got {score!r}", file=path, line=number, field="score")
    return float(score)


def _images(record: dict[str, Any], path: Path, number: int) -> int:
    images = record.get("images", [])
    if not isinstance(images, list) or not all(isinstance(name, str) for name in images):
        raise DataError("'images' must be a list of file paths", file=path, line=number, field="images")
    for name in images:
        if not (path.parent / name).is_file():
            raise DataError(f"intermediate image '{name}' not found (expected {path.parent / name})", file=path,
                            line=number, field="images")
    return len(images)
