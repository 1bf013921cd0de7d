"""Problem loaders: real MATH/GSM8K line formats, line-numbered errors, skip mode, round trip, CHAMP."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataError
from methods.math_reasoning.problems import (
    Problem,
    load_champ,
    load_gsm8k_jsonl,
    load_math_jsonl,
    load_problems_jsonl,
    write_jsonl,
)

MATH_LINE = {
    "problem": "What is $\\frac{1}{2} + \\frac{1}{2}$?",
    "solution": "We add: $\\frac{1}{2}+\\frac{1}{2} = \\boxed{\\frac{2}{2}}$, i.e. $\\boxed{1}$.",
    "level": "Level 2",
    "type": "Prealgebra",
    "unique_id": "test/prealgebra/1.json",
}
GSM8K_LINE = {
    "question": "Janet has 1,000 ducks and buys 234 more. How many ducks?",
    "answer": "She has 1000 + 234 = <<1000+234=1234>>1234 ducks.\n#### 1,234",
}


def _write_lines(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def test_math_answer_is_the_last_box_of_the_solution(tmp_path: Path) -> None:
    report = load_math_jsonl(_write_lines(tmp_path / "math.jsonl", [MATH_LINE]))
    problem = report.problems[0]
    assert (problem.id, problem.answer, problem.level, problem.skills) == \
        ("test/prealgebra/1.json", "1", 2, ("Prealgebra",))
    assert report.skipped == []


def test_math500_answer_field_wins_and_unknown_level_is_none(tmp_path: Path) -> None:
    line = {**MATH_LINE, "answer": "1", "level": "Level ?", "solution": "Add them. \\fbox{2/2}"}
    del line["type"]
    problem = load_math_jsonl(_write_lines(tmp_path / "math.jsonl", [line])).problems[0]
    assert (problem.answer, problem.level, problem.skills) == ("1", None, ())


def test_math_fbox_is_an_answer(tmp_path: Path) -> None:
    line = {**MATH_LINE, "solution": "So \\fbox{7}"}
    assert load_math_jsonl(_write_lines(tmp_path / "math.jsonl", [line])).problems[0].answer == "7"


def test_gsm8k_final_answer_follows_the_marker_without_commas(tmp_path: Path) -> None:
    problem = load_gsm8k_jsonl(_write_lines(tmp_path / "gsm.jsonl", [GSM8K_LINE, "", GSM8K_LINE])).problems[1]
    assert (problem.id, problem.answer) == ("gsm-3", "1234")
    assert problem.solution.startswith("She has")


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "math.jsonl", [MATH_LINE, MATH_LINE | {"unique_id": "b"}, "{not json"])
    with pytest.raises(DataError, match=r"math\.jsonl:3: not valid JSON") as error:
        load_math_jsonl(path)
    assert error.value.line == 3 and error.value.hint


@pytest.mark.parametrize(
    ("loader", "line", "field", "message"),
    [
        (load_math_jsonl, {k: v for k, v in MATH_LINE.items() if k != "problem"}, "problem", "missing"),
        (load_math_jsonl, MATH_LINE | {"solution": "It is 1."}, "solution", "no \\\\boxed"),
        (load_math_jsonl, MATH_LINE | {"level": "hard"}, "level", "Level N"),
        (load_gsm8k_jsonl, {"question": "q", "answer": ""}, "answer", "non-empty"),
        (load_gsm8k_jsonl, {"question": "q", "answer": "It is 5."}, "answer", "####"),
        (load_gsm8k_jsonl, ["a list"], None, "object was expected"),
    ],
)
def test_malformed_line_reports_line_field_and_hint(tmp_path, loader, line, field, message) -> None:
    good = MATH_LINE if loader is load_math_jsonl else GSM8K_LINE
    path = _write_lines(tmp_path / "data.jsonl", [good, line])
    with pytest.raises(DataError, match=message) as error:
        loader(path)
    assert (error.value.line, error.value.field) == (2, field)
    assert ":2:" in str(error.value) and error.value.hint


def test_skip_mode_keeps_good_lines_and_lists_the_skipped(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "gsm.jsonl", [GSM8K_LINE, "{oops", {"question": "q", "answer": "5"}, GSM8K_LINE])
    report = load_gsm8k_jsonl(path, on_error="skip")
    assert [problem.id for problem in report.problems] == ["gsm-1", "gsm-4"]
    assert [skipped.line for skipped in report.skipped] == [2, 3]
    assert "not valid JSON" in report.skipped[0].reason and "####" in report.skipped[1].reason


def test_empty_or_all_bad_file_is_an_empty_problem_set(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(DataError, match="empty problem set"):
        load_math_jsonl(empty)
    with pytest.raises(DataError, match="empty problem set"):
        load_gsm8k_jsonl(_write_lines(tmp_path / "bad.jsonl", ["{oops"]), on_error="skip")


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found") as error:
        load_math_jsonl(tmp_path / "absent.jsonl")
    assert error.value.file == tmp_path / "absent.jsonl"


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="duplicate id") as error:
        load_math_jsonl(_write_lines(tmp_path / "math.jsonl", [MATH_LINE, MATH_LINE]))
    assert error.value.line == 2


def test_harness_jsonl_round_trips_every_field(tmp_path: Path) -> None:
    problems = [
        Problem(id="p1", question="2+2?", answer="4", solution="2+2=4", skills=("add",), level=1,
                source="gen", steps=("2+2=4",)),
        Problem(id="p2", question="What is ½?", answer="\\frac{1}{2}"),
    ]
    path = write_jsonl(problems, tmp_path / "sub" / "problems.jsonl")
    assert load_problems_jsonl(path).problems == problems


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"id": "p", "question": "q"}, "answer"),
        ({"id": "p", "question": "q", "answer": "1", "skills": "add"}, "skills"),
        ({"id": "p", "question": "q", "answer": "1", "level": "2"}, "level"),
        ({"id": "p", "question": "q", "answer": "1", "difficulty": 2}, "difficulty"),
    ],
)
def test_harness_jsonl_refuses_malformed_fields(tmp_path, record, field) -> None:
    with pytest.raises(DataError) as error:
        load_problems_jsonl(_write_lines(tmp_path / "p.jsonl", [record]))
    assert (error.value.line, error.value.field) == (1, field)


def test_champ_has_the_270_real_problems_with_concepts_and_steps() -> None:
    pytest.importorskip("champ_dataset", reason="the real CHAMP problems ship in champ-dataset")
    problems = load_champ()
    assert len(problems) == 270 and len({problem.id for problem in problems}) == 270
    assert sum(1 for problem in problems if not problem.skills) == 47
    assert len({skill for problem in problems for skill in problem.skills}) == 89
    first = next(problem for problem in problems if problem.id == "P_Combinatorics_1")
    assert first.answer == "239" and first.source == "CHAMP/Combinatorics"
    assert first.steps and first.solution == "\n".join(first.steps)
    assert all(problem.answer and problem.question for problem in problems)
