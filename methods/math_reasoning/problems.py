"""The problem record and loaders for the real formats: MATH and GSM8K records (JSONL lines, or table rows
read by `harness.hf_datasets`), CHAMP, and the harness's own JSONL.

Every loader reports a malformed record with its file, 1-based line (or row) number and field. With
``on_error="skip"`` the record is left out and listed in the returned `LoadReport`, so a partly broken
file is visible rather than silently shorter.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Literal

from harness.errors import DataError
from harness.hf_datasets import Field
from methods.math_reasoning.answers import last_boxed

OnError = Literal["raise", "skip"]


@dataclass(frozen=True)
class Problem:
    """One math problem; `answer` is the final answer alone, `solution` the worked solution if any."""

    id: str
    question: str
    answer: str
    solution: str = ""
    skills: tuple[str, ...] = ()
    level: int | None = None
    source: str = ""
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkippedLine:
    """A line left out under ``on_error="skip"``, with the message it would have raised."""

    line: int
    reason: str


@dataclass(frozen=True)
class LoadReport:
    """What a loader read: the problems, and the lines it skipped (always empty with ``on_error="raise"``)."""

    problems: list[Problem]
    skipped: list[SkippedLine]


def _required_text(record: dict[str, Any], field: str, hint: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        what = "is missing" if field not in record else "must be a non-empty string"
        raise DataError(f"field {what}", field=field, hint=hint)
    return value


def _collect(rows: Iterable[tuple[int, Any]], to_problem: Callable[[Any, int], Problem], on_error: OnError,
             source: str | Path, unit: Literal["line", "row"]) -> LoadReport:
    """`to_problem` of each numbered row; its errors get the source and the number, and raise or are skipped
    per `on_error`. A JSONL file counts lines (file:line in errors), a table rows ("row N: ...")."""
    if on_error not in ("raise", "skip"):
        raise DataError(f"on_error must be 'raise' or 'skip', not {on_error!r}", field="on_error")
    problems: list[Problem] = []
    skipped: list[SkippedLine] = []
    seen_ids: set[str] = set()
    for number, row in rows:
        try:
            try:
                problem = to_problem(row, number)
                if problem.id in seen_ids:
                    raise DataError(f"duplicate id {problem.id!r}", field="id", hint="Give every problem its own id.")
            except DataError as error:
                error.file = source
                if unit == "line":
                    error.line = number
                else:
                    error.message = f"row {number}: {error.message}"
                raise
        except DataError as error:
            if on_error == "raise":
                raise
            skipped.append(SkippedLine(line=number, reason=str(error)))
            continue
        seen_ids.add(problem.id)
        problems.append(problem)
    if not problems:
        raise DataError("empty problem set", file=source,
                        hint=f"The file has no valid problem {unit}." if skipped else f"The file has no {unit}s.")
    return LoadReport(problems=problems, skipped=skipped)


def _json_object(text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"not valid JSON ({error.msg})", hint="Each line must hold one JSON object.") from None
    if not isinstance(record, dict):
        raise DataError(f"a JSON {type(record).__name__} where an object was expected",
                        hint="Each line must hold one JSON object.")
    return record


def _read_jsonl(path: Path, on_error: OnError, to_problem: RecordToProblem) -> LoadReport:
    """`to_problem` of each non-blank line's JSON object (its default id `<file stem>-<line>`)."""
    path = Path(path)
    if not path.is_file():
        raise DataError("problem file not found", file=path, hint="Check the path, or generate the file first.")
    with path.open(encoding="utf-8") as handle:
        lines = [(number, text) for number, text in enumerate(handle, start=1) if text.strip()]
    return _collect(lines, lambda text, number: to_problem(_json_object(text), f"{path.stem}-{number}"),
                    on_error, path, "line")


def load_rows(rows: Sequence[dict[str, Any]], source: str, style: Style, on_error: OnError = "raise") -> LoadReport:
    """Problems from table rows keyed by the style's fields (`ROW_FIELDS`); default ids `<source stem>-<row>`."""
    to_problem = ROW_STYLES[style]
    stem = Path(source).stem
    return _collect(enumerate(rows, start=1), lambda row, number: to_problem(row, f"{stem}-{number}"),
                    on_error, source, "row")


def _math_level(value: Any) -> int | None:
    """MATH writes "Level 3" ("Level ?" for a handful of problems); MATH-500 writes the integer, a CSV "3"."""
    if value is None or value == "Level ?":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = re.fullmatch(r"(?:Level )?(\d+)", value) if isinstance(value, str) else None
    if match is None:
        raise DataError(f"level {value!r} is neither 'Level N' nor an integer", field="level",
                        hint="Write e.g. \"Level 3\".")
    return int(match.group(1))


def math_problem(record: dict[str, Any], default_id: str) -> Problem:
    """A Hendrycks MATH (or MATH-500) record as a `Problem`.

    The answer is the `answer` field when present (MATH-500), else the last ``\\boxed{}``/``\\fbox{}``
    of the solution, as in the MATH paper's grader. The subject (`type`, or `subject` in MATH-500)
    becomes the only skill.
    """
    question = _required_text(record, "problem", "Each MATH line needs the problem statement.")
    solution = _required_text(record, "solution", "Each MATH line needs the worked solution.")
    answer = record.get("answer")
    if not (isinstance(answer, str) and answer.strip()):
        answer = last_boxed(solution)
    if answer is None or not answer.strip():
        raise DataError("the solution has no \\boxed{} answer", field="solution",
                        hint="Box the final answer in the solution or add an 'answer' field.")
    subject = record.get("type") or record.get("subject")
    return Problem(
        id=str(record.get("unique_id") or default_id),
        question=question,
        answer=answer.strip(),
        solution=solution,
        skills=(subject,) if isinstance(subject, str) and subject else (),
        level=_math_level(record.get("level")),
        source="MATH",
    )


def gsm8k_problem(record: dict[str, Any], default_id: str) -> Problem:
    """A GSM8K record as a `Problem`: the final answer follows '#### ' at the end of `answer` (commas removed)."""
    question = _required_text(record, "question", "Each GSM8K line needs the question.")
    worked = _required_text(record, "answer", "Each GSM8K line needs the worked answer.")
    reasoning, marker, final = worked.rpartition("####")
    final = final.strip().replace(",", "")
    if not marker or not final:
        raise DataError("the answer has no '#### <number>' final answer", field="answer",
                        hint="End the answer with '#### ' and the number, as GSM8K does.")
    return Problem(id=default_id, question=question, answer=final, solution=reasoning.strip(), source="GSM8K")


RecordToProblem = Callable[[dict[str, Any], str], Problem]
Style = Literal["math", "gsm8k"]
ROW_STYLES: dict[str, RecordToProblem] = {"math": math_problem, "gsm8k": gsm8k_problem}
# The fields each style reads from a table row, for `harness.hf_datasets.read_rows`.
ROW_FIELDS = {
    "math": (Field("problem"), Field("solution"), Field("answer", required=False),
             Field("level", (str, int), required=False), Field("type", required=False),
             Field("subject", required=False), Field("unique_id", required=False)),
    "gsm8k": (Field("question"), Field("answer")),
}


def load_math_jsonl(path: Path, on_error: OnError = "raise") -> LoadReport:
    """Load Hendrycks MATH (and MATH-500) JSONL, each line by `math_problem`."""
    return _read_jsonl(path, on_error, math_problem)


def load_gsm8k_jsonl(path: Path, on_error: OnError = "raise") -> LoadReport:
    """Load GSM8K JSONL, each line by `gsm8k_problem`."""
    return _read_jsonl(path, on_error, gsm8k_problem)


def write_jsonl(problems: Iterable[Problem], path: Path) -> Path:
    """Write the harness's problem JSONL (every `Problem` field), the file handed to lm-eval."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for problem in problems:
            record = asdict(problem)
            record["skills"] = list(problem.skills)
            record["steps"] = list(problem.steps)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def _string_tuple(record: dict[str, Any], field: str) -> tuple[str, ...]:
    value = record.get(field, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DataError("must be a list of strings", field=field)
    return tuple(value)


_PROBLEM_FIELDS = {field.name for field in fields(Problem)}


def _harness_problem(record: dict[str, Any], default_id: str) -> Problem:
    """A line of `write_jsonl`; `id`, `question` and `answer` are required (`default_id` is not used)."""
    hint = "Write problem files with write_jsonl."
    unknown = sorted(set(record) - _PROBLEM_FIELDS)
    if unknown:
        raise DataError(f"unknown fields {unknown}", field=unknown[0],
                        hint=f"A problem line has only the fields {sorted(_PROBLEM_FIELDS)}.")
    level = record.get("level")
    if level is not None and (not isinstance(level, int) or isinstance(level, bool)):
        raise DataError("must be an integer or null", field="level")
    for field in ("solution", "source"):
        if not isinstance(record.get(field, ""), str):
            raise DataError("must be a string", field=field)
    return Problem(
        id=_required_text(record, "id", hint),
        question=_required_text(record, "question", hint),
        answer=_required_text(record, "answer", hint),
        solution=record.get("solution", ""),
        skills=_string_tuple(record, "skills"),
        level=level,
        source=record.get("source", ""),
        steps=_string_tuple(record, "steps"),
    )


def load_problems_jsonl(path: Path, on_error: OnError = "raise") -> LoadReport:
    """Read back a file written by `write_jsonl`."""
    return _read_jsonl(path, on_error, _harness_problem)


def load_champ() -> list[Problem]:
    """The 270 CHAMP competition problems (Mao et al., 2024) shipped in the `champ-dataset` package.

    Observed in champ-dataset 1.0.0 (`v0`): 270 problems (Number-Theory 80, Inequality 50,
    Polynomial 50, Sequence 50, Combinatorics 40), 89 concepts, 382 concept uses, 47 problems
    without a concept. Skills are the concept identifiers (e.g. ``C_AMGM2``): only 39 of the 89
    concepts carry a human-readable name. Answers are plain text (``1/3``, ``2^(n-1)``) and some are
    sentences ("0 is the only possible value"); they are kept, and `check_answer` reports those as
    unparsed.
    """
    import champ_dataset

    dataset = champ_dataset.load("v0")
    problems = []
    for record in dataset.problems.values():
        steps = tuple(step.text for step in record.solution.steps)
        concepts = tuple(dict.fromkeys(item for item in record.ch_list if item.startswith("C_")))
        problems.append(Problem(
            id=record.identifier,
            question=record.text,
            answer=record.answer,
            solution="\n".join(steps),
            skills=concepts,
            source=f"CHAMP/{record.category}",
            steps=steps,
        ))
    return problems
