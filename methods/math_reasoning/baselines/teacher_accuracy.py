"""The teacher's own accuracy on the scoring prompts (GRACE's "strong teacher" baseline): the share of its
n x m responses whose final answer matches the prompt's gold answer (`answers.check_answer`).

The score is the negated accuracy, so that lower is better; the paper finds it correlates only ~11 % with
the distilled student's accuracy on GSM8K.
"""
from __future__ import annotations

from harness import MethodParams
from harness.context import RunContext
from methods.math_reasoning.answers import accuracy, check_answer
from methods.math_reasoning.teacher_scoring import TeacherScorer
from methods.math_reasoning.teacher_selection import PoolInputs, TeacherData


class TeacherAccuracy(TeacherScorer[MethodParams]):
    def score_teacher(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> float:
        verdicts = [check_answer(teacher.gold[p], r).correct for p, r in zip(teacher.prompt_ids, teacher.responses,
                                                                               strict=True)]
        return -accuracy(verdicts)
