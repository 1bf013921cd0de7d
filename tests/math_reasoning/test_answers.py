"""The harness's answer scorer: extraction priority, math-verify equivalence on real CHAMP answers, unparsed counts."""
from __future__ import annotations

import threading

import pytest

from harness.errors import DataError
from methods.math_reasoning.answers import (
    AnswerCheck,
    accuracy,
    average_at_k,
    check_answer,
    extract_answer,
    is_prose,
    last_boxed,
    normalize_answer,
)


@pytest.mark.parametrize(
    ("generation", "expected"),
    [
        ("Final Answer: The final answer is $\\frac{1}{2}$. I hope it is correct.", "\\frac{1}{2}"),
        ("Final Answer: The final answer is 3.5. I hope it is correct.", "3.5"),
        ("So we are done. The final answer is 3.5.", "3.5"),
        ("The final answer is \\boxed{5}.", "5"),
        ("The answer is: 12. Then 13 more.", "12"),
        ("the answer is $x^2$", "x^2"),
        ("Janet makes 9 * 2 = 18 dollars.\n#### 1,234", "1234"),
        ("The points (1,2) and -3.5", "-3.5"),
        ("", None),
        ("no digits here", None),
    ],
)
def test_each_rule_extracts_its_answer(generation: str, expected: str | None) -> None:
    assert extract_answer(generation) == expected


def test_final_answer_statement_beats_a_later_box() -> None:
    assert extract_answer("\\boxed{5} hmm. The final answer is $2$. Later \\boxed{7}") == "2"


def test_last_box_beats_the_answer_is_and_numbers() -> None:
    assert extract_answer("The answer is 4. \\boxed{3} then \\boxed{\\frac{1}{2}} and 9") == "\\frac{1}{2}"


def test_the_answer_is_beats_a_later_number() -> None:
    assert extract_answer("The answer is 3. Check: 3+4=7") == "3"


def test_restated_final_answer_takes_the_last() -> None:
    assert extract_answer("The final answer is 4. Wait. The final answer is 5.") == "5"


def test_last_boxed_balances_nested_braces_and_reads_fbox() -> None:
    assert last_boxed("\\boxed{1} and \\boxed{\\frac{\\sqrt{3}}{2}}") == "\\frac{\\sqrt{3}}{2}"
    assert last_boxed("so \\fbox{42}") == "42"
    assert last_boxed("\\boxed{unclosed") is None


def test_normalisation_drops_spacing_dollars_full_stop_and_thousands_commas_only() -> None:
    assert normalize_answer(" $1,234$. ") == "1234"
    assert normalize_answer("(1, 2)") == "(1,2)"


def test_sentences_are_prose_and_expressions_are_not() -> None:
    for sentence in ("No", "Yes", "0 is the only possible value", "x(n)<y(n-1) for all n≥3"):
        assert is_prose(sentence), sentence
    for expression in ("n(n+1)*2^(n-2)", "\\frac{\\sqrt{2}}{2}", "x=2, y=1", "sqrt(3)", "xy", "\\text{(C)}"):
        assert not is_prose(expression), expression


@pytest.fixture(scope="module")
def champ_answers() -> dict[str, str]:
    pytest.importorskip("champ_dataset", reason="the real CHAMP problems ship in champ-dataset")
    from methods.math_reasoning.problems import load_champ

    return {problem.id: problem.answer for problem in load_champ()}


# Real CHAMP gold answers (plain text such as "2^(n-1)") against LaTeX predictions a model would write.
CHAMP_GOLDEN = [
    ("P_Inequality_2", "\\boxed{0.5}", True),            # 1/2
    ("P_Inequality_2", "\\boxed{\\frac{1}{3}}", False),
    ("P_Inequality_34", "\\boxed{\\sqrt{2}}", True),     # sqrt(2)
    ("P_Inequality_34", "\\boxed{2}", False),
    ("P_Inequality_1", "\\boxed{(-1,1)}", False),        # [-1, 1]: closed against open interval
    ("P_Combinatorics_13", "\\boxed{2^{2n}}", True),     # 4^n
    ("P_Combinatorics_6", "\\boxed{2^{n-1}}", True),     # 2^(n-1)
    ("P_Combinatorics_6", "\\boxed{2^n}", False),
    ("P_Combinatorics_11", "\\boxed{\\frac{n^2-3n}{2}}", True),  # n(n-3)/2
    ("P_Combinatorics_25", "\\boxed{(n-1)!}", False),    # n!
    ("P_Inequality_21", "The answer is $\\frac{1}{n+1}$.", True),  # 1/(n+1)
    ("P_Number-Theory_31", "\\boxed{x=1, y=2}", False),  # x=2, y=1
    ("P_Sequence_23", "\\boxed{-0.5}", True),            # -1/2
    ("P_Polynomial_14", "\\boxed{x^4+x^2+1}", True),     # (x^2+x+1)(x^2-x+1)
    ("P_Inequality_17", "\\boxed{1-2^{-1/n}}", True),    # 1-1/2^(1/n)
]


@pytest.mark.parametrize(("problem_id", "generation", "equivalent"), CHAMP_GOLDEN)
def test_math_verify_decides_real_champ_answers(champ_answers, problem_id, generation, equivalent) -> None:
    check = check_answer(champ_answers[problem_id], generation)
    assert check.parsed
    assert check.correct is equivalent


def test_champ_sentence_answers_are_counted_as_unparsed(champ_answers) -> None:
    sentence = champ_answers["P_Number-Theory_19"]  # "0 is the only possible value"
    assert check_answer(sentence, f"The final answer is {sentence}.") == AnswerCheck(sentence, True, False)
    assert check_answer(sentence, "\\boxed{0}") == AnswerCheck("0", False, False)
    unparsed = [gold for gold in champ_answers.values() if not check_answer(gold, "\\boxed{0}").parsed]
    # champ-dataset 1.0.0: 139 prose answers, plus "a(1±sqrt(2)), ..." and "x(x-1)(x-2)...(x-2022)"
    assert len(unparsed) == 141


def test_identical_strings_skip_math_verify_and_count_as_parsed() -> None:
    assert check_answer("1234", "#### 1,234").parsed


def test_unreadable_prediction_falls_back_to_string_comparison() -> None:
    pytest.importorskip("math_verify")
    check = check_answer("5", "\\boxed{\\frac{}{}}")
    assert (check.extracted, check.correct, check.parsed) == ("\\frac{}{}", False, False)


def test_no_answer_is_wrong_and_unparsed() -> None:
    check = check_answer("5", "I do not know")
    assert (check.extracted, check.correct, check.parsed) == (None, False, False)


def test_check_answer_works_outside_the_main_thread() -> None:
    """math-verify's signal.alarm timeouts raise in threads unless they are switched off."""
    pytest.importorskip("math_verify")
    results = []
    thread = threading.Thread(target=lambda: results.append(check_answer("1/2", "\\boxed{0.5}")))
    thread.start()
    thread.join()
    assert results[0].correct and results[0].parsed


def test_accuracy_and_average_at_k_are_percentages() -> None:
    assert accuracy([True, False, True, True]) == 75.0
    assert average_at_k([[True, False], [True, True]]) == 75.0


def test_empty_or_ragged_scores_are_refused() -> None:
    with pytest.raises(DataError):
        accuracy([])
    with pytest.raises(DataError, match="same number k"):
        average_at_k([[True], [True, False]])
