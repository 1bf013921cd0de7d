"""Bring your own questions: GSM8K- or BBH-style questions with their targets, one JSON object per line:

    {"id": "gsm8k-17", "question": "Natalia sold clips to ...", "target": "... #### 72"}
    {"id": "bbh-date-3", "input": "Today is ... (A) 01/05/2021 ...", "target": "(A)"}

`question` or `input` (either; kept for your reference), `target` (GSM8K's `#### N` suffix or a bare number:
checked with math-verify; anything else, e.g. BBH's `(A)` or `True`: normalised exact match of the text after
the last "answer is"). An optional `domain` groups the rows (default: `numeric` or `text` by the target). Your
model's generations are a predictions file of the task (`predictions:` in a suite; the family's README). Blank
lines are skipped; every mistake is a `DataError` naming the file, the line and the field.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness import DataError
from harness.json_lines import json_objects
from methods.modular_lm.scoring import is_numeric

_KEYS = {"id", "question", "input", "target", "domain"}


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    target: str
    domain: str


def _text(record: dict, key: str, path: Path, number: int, hint: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise DataError(f"'{key}' must be a string, got {type(value).__name__}", file=path, line=number, field=key,
                        hint=hint)
    return value


def read_questions(path: Path) -> list[Question]:
    """Every line of `path` in file order."""
    rows: list[Question] = []
    seen: set[str] = set()
    for number, record in json_objects(path, _KEYS | {"generation"}):
        if "generation" in record:
            raise DataError("a question holds no 'generation'", file=path, line=number, field="generation",
                            hint="Your generations go in a predictions file (condition, id, generation, routing) "
                                 "named by the suite's `predictions:` (methods/modular_lm/README.md).")
        name = record.get("id")
        if not isinstance(name, str | int) or isinstance(name, bool) or str(name) == "":
            raise DataError("no 'id' (a non-empty string or an integer)", file=path, line=number, field="id")
        if str(name) in seen:
            raise DataError(f"id '{name}' appears twice", file=path, line=number, field="id")
        seen.add(str(name))
        key = "question" if "question" in record else "input"
        question = _text(record, key, path, number, "Give the question as 'question' (GSM8K) or 'input' (BBH).")
        target = _text(record, "target", path, number, "GSM8K: '... #### 72' or '72'; BBH: '(A)', 'True', ...")
        if not target.strip():
            raise DataError("'target' is empty", file=path, line=number, field="target")
        domain = record.get("domain", "numeric" if is_numeric(target) else "text")
        if not isinstance(domain, str) or not domain:
            raise DataError("'domain' must be a non-empty string", file=path, line=number, field="domain")
        rows.append(Question(str(name), question, target, domain))
    if not rows:
        raise DataError("holds no questions", file=path)
    return rows
