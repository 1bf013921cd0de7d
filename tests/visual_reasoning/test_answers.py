"""Answer extraction on the strings models actually write: tags, phrases, boxes, emphasis, articles, words."""
from __future__ import annotations

import pytest

from methods.visual_reasoning.answers import answer_span, moves, number, option_letter, permutation

OPTIONS = {"A": "top-left", "B": "top-right", "C": "bottom-left", "D": "bottom-right"}


@pytest.mark.parametrize(("text", "letter"), [
    ("Answer: B", "B"), ("(c)", "C"), ("b)", "B"), ("d", "D"), ("<answer>D</answer>", "D"),
    ("**Answer:** \\boxed{C}", "C"), ("Option B: top-right", "B"), ("The answer is (A).", "A"),
    ("A blue square is in the upper right, so the answer is B.", "B"),  # the article is not option A
    ("A yellow triangle sits at the bottom left", "C"),  # no letter: the option's own words
    ("The target is in the top right quadrant.", "B"),
    ("<think>A or B? It is left.</think><answer>top-left</answer>", "A"),
    ("I cannot tell.", None), ("", None),
])
def test_option_letters(text, letter):
    assert option_letter(text, OPTIONS) == letter


@pytest.mark.parametrize(("text", "value"), [
    ("Answer: 1,234.5", 1234.5), ("about 35.", 35.0), ("The value is thirty-five", 35.0), ("−3", -3.0),
    ("35%", 35.0), ("Bar C: 40 (approximately)", 40.0), ("\\boxed{45}", 45.0),
    ("The answer is 7 because bar B is 30", 7.0),  # a marked answer: its first number
    ("Bar B is 30 and bar C reaches 55", 55.0),  # unmarked: the last number
    ("<answer> 60 </answer> (bar 2)", 60.0), ("no idea", None),
])
def test_numbers(text, value):
    assert number(text) == value


@pytest.mark.parametrize(("text", "path"), [
    ("Answer: R R D", "RRD"), ("right, right, down", "RRD"), ("RRD", "RRD"), ("['R', 'D']", "RD"),
    ("→→↓", "RRD"), ("Answer: U, L, L", "ULL"), ("I go up then left", "UL"), ("Down down", "DD"),
    ("<answer>r-r-u</answer>", "RRU"), ("Answer: none", None), ("", None),
])
def test_move_sequences(text, path):
    assert moves(text) == path


@pytest.mark.parametrize(("text", "path"), [
    ("I can't go left because of the hole, so I go right then down", "RD"),  # issue 56: was "LRD"
    ("Go down instead of right", "D"), ("Not up. Answer: left, down", "LD"),
    ("Left is a hole, so down then right", "DR"),
    ("The answer is right, then down, not left", "RD"), ("Avoid the hole on the left: go down, down, right.", "DDR"),
    ("I thought about left but the answer is D D R", "DDR"),  # marked: the reasoning before it is not read
    ("I'd go right", "R"),  # the "d" of "I'd" is no move
    ("Maybe left or down", None), ("Answer: maybe L or D", None), ("Should I go up?", None),  # hedged
    ("Go up. Then left.", None),  # unmarked moves over two sentences: ambiguous
    ("Answer: I cannot decide", None), ("Answer: not left", None),
])
def test_negated_and_hedged_directions_are_never_read_as_moves(text, path):
    assert moves(text) == path


def test_the_committed_solvers_answer_format_is_read_as_before():
    """Every maze answer behind a committed report is "Answer: " and space-separated letters (or "none")."""
    assert [moves(f"Answer: {text}") for text in ("R D D L U", "U", "none")] == ["RDDLU", "U", None]


@pytest.mark.parametrize(("text", "placement"), [
    ("Answer: 2 0 3 1", [2, 0, 3, 1]), ("[3, 1, 4, 2]", [2, 0, 3, 1]),  # numbered from one: shifted
    ("<answer>1,0,3,2</answer> since tile 4 ...", [1, 0, 3, 2]),
    ("2,0,3", None), ("Answer: 1 1 2 3", None), ("Answer: 0 1 2 5", None),
])
def test_permutations(text, placement):
    assert permutation(text, 4) == placement


def test_the_answer_span_is_the_last_tag_then_the_last_answer_phrase():
    assert answer_span("<answer>A</answer> then <answer>B</answer>") == "B"
    assert answer_span("My answer: maybe C. Final answer: D") == "D"
    assert answer_span("**42**") == "42"
