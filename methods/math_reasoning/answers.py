"""The harness's own answer scorer: extract a final answer from a generation, then decide equivalence.

Extraction follows the priority of GRACE's evaluation script and Minerva (Lewkowycz et al., 2022,
appendix D): an explicit "final answer is X" statement, then the last ``\\boxed{}``, then
"the answer is X", then the last number (GSM8K style). Equivalence is math-verify's
(`verify(gold, prediction)`, gold first: it is asymmetric); when math-verify cannot parse a side
the verdict falls back to a normalised string comparison and says so (`parsed=False`), so an
unparseable answer is counted rather than silently scored right or wrong.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from harness.errors import DataError

_FINAL_ANSWER_DOLLARS = re.compile(r"final answer is:?\s*\$(?P<answer>[^$]+)\$", re.IGNORECASE)
# Minerva's "Final Answer: The final answer is X. I hope it is correct." and a plain "The final answer
# is X." (X ends at a full stop followed by a space or the end, so "3.5." keeps its decimal).
_FINAL_ANSWER_PLAIN = re.compile(
    r"final answer is:?\s*(?P<answer>.+?)\s*(?:\.?\s*I hope it is correct|\.(?=\s|$)|\n|$)",
    re.IGNORECASE,
)
_THE_ANSWER_IS = re.compile(
    r"the answer is:?\s*(?P<answer>.+?)\s*(?:\.(?=\s|$)|\n|$)",
    re.IGNORECASE,
)
# Integers and decimals, optionally negative, with thousands separators ("1,234"); "(1,2)" stays two numbers.
_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|-?\.\d+")
_BOX_COMMANDS = ("\\boxed", "\\fbox")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# Letter runs not introduced by a backslash; math function names written without one are not prose.
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]+")
_MATH_WORDS = frozenset(
    "sin cos tan cot sec csc log ln exp sqrt max min gcd lcm mod sum prod lim inf infty pi".split()
)


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` or ``\\fbox{...}`` in `text`, braces balanced; None if there is none.

    A regex cannot match nested braces (``\\boxed{\\frac{1}{2}}``), so the braces are counted.
    """
    start = max(text.rfind(command + "{") for command in _BOX_COMMANDS)
    if start < 0:
        return None
    open_brace = text.index("{", start)
    depth = 0
    for position in range(open_brace, len(text)):
        if text[position] == "{":
            depth += 1
        elif text[position] == "}":
            depth -= 1
            if depth == 0:
                return text[open_brace + 1 : position]
    return None


def _last_match(pattern: re.Pattern[str], text: str) -> str | None:
    answers = [match.group("answer").strip() for match in pattern.finditer(text)]
    answers = [answer for answer in answers if answer]
    return answers[-1] if answers else None


def _clean(answer: str) -> str:
    """Drop the math delimiters and trailing full stop around an extracted answer, and unbox it."""
    answer = answer.strip().strip("$").strip().rstrip(".").strip()
    boxed = last_boxed(answer)
    return boxed.strip() if boxed is not None else answer


def extract_answer(text: str) -> str | None:
    """The final answer stated in a generation, or None when it states none.

    The last occurrence of each pattern wins: a model that restates its answer means the restatement.
    """
    final = _last_match(_FINAL_ANSWER_DOLLARS, text) or _last_match(_FINAL_ANSWER_PLAIN, text)
    if final is not None:
        return _clean(final)
    boxed = last_boxed(text)
    if boxed is not None and boxed.strip():
        return boxed.strip()
    stated = _last_match(_THE_ANSWER_IS, text)
    if stated is not None:
        return _clean(stated)
    numbers = _NUMBER.findall(text)
    return numbers[-1].replace(",", "") if numbers else None


def normalize_answer(answer: str) -> str:
    """The string both routes compare: no whitespace, no '$', no trailing '.', no thousands commas.

    Case is kept (``x`` and ``X`` may differ in mathematics); lm-eval's exact_match ignores it.
    """
    answer = re.sub(r"\s+", "", answer).replace("$", "").rstrip(".")
    return _THOUSANDS_COMMA.sub("", answer)


def is_prose(answer: str) -> bool:
    """Whether an answer is a sentence ("No", "0 is the only possible value") rather than an expression.

    math-verify reads "$No$" as the product n*o, which would make "No" and "on" equivalent; prose is
    therefore never handed to it. A word is prose when it is capitalised or has three or more letters
    and is not a function name; two-letter lower-case runs ("xy") stay products of variables.
    """
    for word in _WORD.findall(answer):
        if word.lower() in _MATH_WORDS:
            continue
        if len(word) >= 3 or (word[0].isupper() and word[1:].islower() and len(word) > 1):
            return True
    return False


@dataclass(frozen=True)
class AnswerCheck:
    """One scored generation: what was extracted, the verdict, and whether math-verify reached it."""

    extracted: str | None
    correct: bool
    parsed: bool


def _math_verify_parse(answer: str, timeout: int | None) -> list:
    """math-verify's reading of a bare answer; wrapped in '$' because its LaTeX extraction needs delimiters."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    return parse(
        f"${answer}$",
        extraction_config=[LatexExtractionConfig(), ExprExtractionConfig()],
        parsing_timeout=timeout,
    )


def _is_parsed(parsed: list) -> bool:
    import sympy

    return any(isinstance(item, (sympy.Basic, sympy.MatrixBase)) for item in parsed)


def check_answer(gold: str, generation: str) -> AnswerCheck:
    """Score a generation against a gold final answer.

    `parsed` is False when no answer was found, when either side is prose, or when math-verify cannot
    parse either side; `correct` is then the normalised string comparison.
    """
    extracted = extract_answer(generation)
    if extracted is None:
        return AnswerCheck(extracted=None, correct=False, parsed=False)
    same_string = normalize_answer(gold) == normalize_answer(extracted)
    if is_prose(gold) or is_prose(extracted):
        return AnswerCheck(extracted=extracted, correct=same_string, parsed=False)
    if same_string:
        return AnswerCheck(extracted=extracted, correct=True, parsed=True)
    from math_verify import verify

    # signal.alarm, which math-verify's timeouts use, only works in the main thread.
    timeout = 5 if threading.current_thread() is threading.main_thread() else None
    gold_parsed = _math_verify_parse(normalize_answer(gold), timeout)
    pred_parsed = _math_verify_parse(normalize_answer(extracted), timeout)
    if not (_is_parsed(gold_parsed) and _is_parsed(pred_parsed)):
        # The string fallback: the normalised strings already differ here.
        return AnswerCheck(extracted=extracted, correct=same_string, parsed=False)
    correct = verify(gold_parsed, pred_parsed, timeout_seconds=timeout)
    return AnswerCheck(extracted=extracted, correct=correct, parsed=True)


def accuracy(correct: Sequence[bool]) -> float:
    """Percentage of correct answers (0-100), the unit the papers report."""
    if not correct:
        raise DataError("no answers to score", hint="Pass at least one verdict.")
    return 100.0 * sum(bool(c) for c in correct) / len(correct)


def average_at_k(correct: Sequence[Sequence[bool]]) -> float:
    """avg@k in percent: the per-problem accuracy over its k samples, averaged over problems.

    Every problem must have the same k, otherwise problems would be weighted unequally.
    """
    if not correct:
        raise DataError("no problems to score", hint="Pass one list of k verdicts per problem.")
    sizes = {len(samples) for samples in correct}
    if len(sizes) != 1 or 0 in sizes:
        raise DataError(
            f"avg@k needs the same number k >= 1 of samples per problem, got sizes {sorted(sizes)}",
            hint="Drop or resample the problems with a different number of samples.",
        )
    return sum(accuracy(samples) for samples in correct) / len(correct)
