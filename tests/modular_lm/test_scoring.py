"""The answer checkers: math-verify for numeric targets (GSM8K's `####` suffix too), normalised exact match for
the rest (BBH's "the answer is (A)")."""
from __future__ import annotations

import pytest

pytest.importorskip("math_verify")

from methods.modular_lm.scoring import final_target, is_correct, is_numeric  # noqa: E402


@pytest.mark.parametrize(("generation", "target", "expected"), [
    ("7", "7", True), ("70", "7", False), ("She sold 48 + 24 = 72 clips. The answer is 72.", "#### 72", True),
    ("The answer is 3,600.", "3600", True), ("So the answer is 71.", "Natalia ... #### 72", False),
    ("box", "box", True), ("basket", "box", False), ("Let's think. So the answer is (A).", "(A)", True),
    ("So the answer is (B).", "(A)", False), ("True", "True", True), ("the answer is: valid", "Valid", True),
])
def test_checker_verdicts(generation, target, expected):
    assert is_correct(generation, target) is expected


def test_targets():
    assert final_target("step 1 ... #### 42") == "42" and is_numeric("#### 1,234") and not is_numeric("(A)")
