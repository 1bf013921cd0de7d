"""STAT's stages on generated problems: difficulty rules, the programmatic teacher, selection and synthesis."""
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("math_verify")  # the math-reasoning extra: the scorer judges answers with it

from methods.math_reasoning import generator, stat  # noqa: E402
from methods.math_reasoning.problems import Problem  # noqa: E402


def _problem(question: str) -> Problem:
    return generator.make_problem("q", *generator.parse_chain(Problem("q", question, "")))


def test_generated_solution_reaches_its_answer_step_by_step():
    for p in generator.problem_set(50, 3):
        _, steps = generator.parse_chain(p)
        assert p.answer == str(steps[-1].result) and p.level == len(steps)
        assert all(0 <= s.result <= generator.MAX_VALUE for s in steps)
        assert p.solution.endswith(f"The final answer is {p.answer}.")


def test_every_step_style_rewrites_the_same_chain():
    p = generator.problem_set(1, 5, steps=(3, 3))[0]
    rewrites = stat.with_rewrites([p])
    assert len({r.solution for r in rewrites}) == 3 and {r.answer for r in rewrites} == {p.answer}


def test_teacher_names_the_skill_of_the_first_wrong_step():
    p = _problem("Start with 12. Add 7, then multiply by 3, then subtract 5. What is the result?")
    assert stat.first_wrong_skill(p, "12 + 7 = 19. 19 * 3 = 57. 57 - 5 = 52. The final answer is 52.") is None
    assert stat.first_wrong_skill(p, "12 + 7 = 19. 19 * 3 = 54. 54 - 5 = 49. The final answer is 49.") == "multiply"
    assert stat.first_wrong_skill(p, "12 + 7 = 18. 18 * 3 = 54. 54 - 5 = 49. The final answer is 49.") == "add"
    assert stat.first_wrong_skill(p, "12 + 7 = 19. The final answer is 19.") == "multiply"  # a step left out
    assert stat.first_wrong_skill(p, "12 + 7 = 19. 19 * 3 = 57. 57 - 5 = 52. The final answer is 50.") == "subtract"


def test_teacher_noise_relabels_about_that_fraction():
    problems = generator.problem_set(400, 8, steps=(1, 1), weights={"add": 1.0})
    wrong = ["1 + 1 = 0. The final answer is 0."] * len(problems)
    clean = stat.missing_skill_profile(problems, wrong)
    noisy = stat.missing_skill_profile(problems, wrong, noise=0.3, seed=1)
    assert set(map(tuple, clean.values())) == {("add",)}
    flipped = np.mean([noisy[k] != ["add"] for k in noisy])
    assert 0.24 < flipped < 0.36


def test_consistency_rule_flags_a_modal_answer_seen_fewer_than_twice():
    agree = ["The final answer is 4."] * 2 + ["The final answer is 5.", "x", "The final answer is 6."]
    scatter = ["The final answer is 1.", "The final answer is 2.", "The final answer is 3.", "no", "none"]
    assert stat.consistency_difficult([agree, scatter]) == [False, True]


def test_classifier_agreement_matches_hand_counts():
    scores = stat.classifier_agreement([True, True, False, False], [True, False, True, False])
    assert scores == {"accuracy": 50.0, "precision": 50.0, "recall": 50.0, "f1": 50.0}


def test_stat_sel_spends_the_budget_on_the_missing_skills():
    pool = generator.problem_set(2000, 1)
    profile = {f"v{i}": ["divide"] for i in range(30)}
    chosen = stat.stat_sel(pool, profile, budget=300, seed=0)
    assert len(chosen) == 300
    assert all("divide" in p.skills for p in chosen)
    assert stat.implied_weights(pool, profile)["divide"] > 0 == stat.implied_weights(pool, profile)["add"]


def test_subsample_fills_the_budget_by_repeating_a_small_selection():
    assert sorted(Counter(stat.subsample(["a", "b"], 5, np.random.default_rng(0))).values()) == [2, 3]
    with pytest.raises(ValueError, match="empty"):
        stat.subsample([], 5, np.random.default_rng(0))


def test_synthesised_questions_stress_their_skill():
    questions = stat.synthesis_questions({"v1": ["remainder"], "v2": ["multiply"]}, seed=0)
    assert len(questions) == 2 * stat.SYN_QUESTIONS
    assert all(("remainder" in q.skills) == q.id.startswith("syn-v1") for q in questions)


def test_consistency_filter_keeps_agreeing_solutions_only():
    p = _problem("Start with 3. Add 4. What is the result?")
    right, wrong = "3 + 4 = 7. The final answer is 7.", "3 + 4 = 8. The final answer is 8."
    pairs, yielded = stat.consistency_filter([p, p], [[right, right, wrong], [right, wrong, "garbage"]])
    assert pairs == [(p.question, right), (p.question, right)]
    assert (yielded.questions, yielded.kept, yielded.kept_correct) == (2, 1, 1)
