"""Bring your own tasks: a prompts file (your TOMG-Bench MolOpt or MuMO test prompts as JSONL), the `prompts`
dataset. Your model's SMILES answers to them are a suite's `predictions:` file (columns `task`, `smiles`), which
the engine checks and the family's RDKit (and ADMET-AI) scoring scores.

Prompts, one JSON object per line: `id`, `source` (the input SMILES), `objective` (`qed+`, `logp+`, `mr+`,
`tpsa-`, or several joined by commas, `qed+,plogp+`), optionally `delta` (the similarity the answer must keep;
default the dataset's). Blank lines are skipped; every malformed line is a `DataError` naming file and line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import DataError
from harness.json_lines import json_object
from methods.molecule_opt.objectives import OptTask, parse_objectives

_PROMPT_KEYS = {"id", "source", "objective", "delta"}


def _records(path: Path, keys: set[str]) -> list[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot be read: {exc}", file=path) from None
    records = [(n, json_object(line, path, n, keys)) for n, line in enumerate(lines, start=1) if line.strip()]
    if not records:
        raise DataError("holds no records", file=path)
    return records


def _text(record: dict[str, Any], key: str, path: Path, number: int) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise DataError(f"'{key}' must be a string, got {value!r}", file=path, line=number, field=key)
    return value


def read_prompts(path: Path, delta: float) -> list[OptTask]:
    """The tasks of a prompts file; a source RDKit cannot parse is an error (it could not be scored)."""
    from methods.molecule_opt.chem import canonical  # RDKit: validating a suite needs no `molecules` extra

    tasks: dict[str, OptTask] = {}
    for number, record in _records(path, _PROMPT_KEYS):
        name = _text(record, "id", path, number)
        if name in tasks:
            raise DataError(f"task id '{name}' appears twice", file=path, line=number, field="id")
        source = canonical(_text(record, "source", path, number))
        if source is None:
            raise DataError(f"source {record['source']!r} is not a valid molecule", file=path, line=number,
                            field="source")
        try:
            objectives = parse_objectives(_text(record, "objective", path, number), "objective")
        except DataError as exc:
            raise DataError(exc.message, file=path, line=number, field="objective", hint=exc.hint) from None
        own = record.get("delta", delta)
        if isinstance(own, bool) or not isinstance(own, int | float) or not 0 <= own < 1:
            raise DataError(f"delta must be a similarity in [0, 1), got {own!r}", file=path, line=number,
                            field="delta")
        tasks[name] = OptTask(name, source, objectives, float(own))
    return list(tasks.values())

