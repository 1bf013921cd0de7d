"""The synthetic teachers have exactly the defect they are named after, at the rate asked for."""
from __future__ import annotations

import re

import numpy as np
import pytest

from methods.math_reasoning import generator
from methods.math_reasoning.answers import check_answer
from methods.math_reasoning.teachers import ANSWER_ONLY, Teacher, answer, noisy_steps

PROBLEMS = generator.problem_set(300, 7)
STEP = re.compile(r"(-?\d+) (\+|-|\*|/|mod) (\d+) (?:=|gives|is) (-?\d+)\.")  # any of the 3 step styles
OPS = {"+": lambda v, a: v + a, "-": lambda v, a: v - a, "*": lambda v, a: v * a, "/": lambda v, a: v // a,
       "mod": lambda v, a: v % a}


def responses(kind, noise=0.0, m=1, problems=PROBLEMS):
    return [r for rs in answer(Teacher(kind, kind, noise=noise), problems, m, seed=0) for r in rs]


def test_cot_teacher_writes_the_reference_solution_in_one_of_its_styles():
    texts = responses("cot")
    for problem, text in zip(PROBLEMS, texts, strict=True):
        assert text in {generator.restyle(problem, s).solution for s in range(len(generator.STEP_STYLES))}
    assert len({t.split(" ")[0] == "Next," for t in texts}) == 2  # more than one style is drawn


def test_answer_only_teacher_states_the_right_answer_without_steps():
    for problem, text in zip(PROBLEMS, responses("answer_only"), strict=True):
        assert text in {phrase.format(r=problem.answer) for phrase in ANSWER_ONLY} and "=" not in text
        assert check_answer(problem.answer, text).correct


def test_wrong_format_teacher_writes_the_steps_but_no_final_answer():
    for problem, text in zip(PROBLEMS, responses("wrong_format"), strict=True):
        assert "final answer" not in text.lower()
        assert len(STEP.findall(text)) == problem.level


@pytest.mark.parametrize("noise", [0.0, 0.3, 1.0])
def test_noisy_teacher_errs_at_the_requested_rate_and_carries_errors_forward(noise):
    wrong = total = 0
    for text in responses("noisy", noise):
        steps = STEP.findall(text)
        for i, (value, op, operand, result) in enumerate(steps):
            if i:
                assert int(value) == int(steps[i - 1][3])  # the next step starts from the (wrong) result
            wrong += OPS[op](int(value), int(operand)) != int(result)
            total += 1
        assert text.endswith(f"The final answer is {steps[-1][3]}.")
    assert abs(wrong / total - noise) < 0.05


def test_noisy_steps_at_zero_noise_reproduce_the_chain():
    start, steps = generator.parse_chain(PROBLEMS[0])
    assert noisy_steps(start, steps, 0.0, np.random.default_rng(0)) == steps


def test_random_teacher_is_rarely_right_and_seeded():
    pytest.importorskip("math_verify")
    problems = PROBLEMS[:60]  # wrong answers go through math-verify: slow
    texts = responses("random", problems=problems)
    right = np.mean([check_answer(p.answer, t).correct for p, t in zip(problems, texts, strict=True)])
    assert right < 0.1 and texts == responses("random", problems=problems)


def test_a_synthetic_teacher_words_its_m_responses_differently_but_answers_alike():
    """Identical responses would leave GRACE's covariance rank-deficient (see teachers.py)."""
    per_problem = answer(Teacher("cot", "cot"), PROBLEMS[:20], 4, seed=1)
    assert all(len(rs) == 4 for rs in per_problem) and any(len(set(rs)) > 1 for rs in per_problem)
    assert all(len({r.rsplit(" ", 1)[1] for r in rs}) == 1 for rs in per_problem)


def test_a_bad_teacher_is_refused():
    with pytest.raises(ValueError, match="unknown teacher kind"):
        Teacher("x", "oracle")
    with pytest.raises(ValueError, match="temperature"):
        Teacher("x", "lm", -0.1, model_dir="m")
