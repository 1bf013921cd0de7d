"""What every training-set method shares: choose QA pairs, fine-tune the student on them, answer the tests.

A method implements `select` (the paper's data construction); `run` applies the one SFT recipe of the
dataset to a fresh copy of the student, so methods differ only in their data, at an equal budget.
"""
from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from harness import Method, MethodParams, RunContext
from methods.math_reasoning import generation, generator, sft, tiny_model
from methods.math_reasoning.problems import Problem
from methods.math_reasoning.training_task import TrainingInputs, TrainingOutput


P = TypeVar("P", bound=MethodParams)


class TrainingSetMethod(Method[P]):
    """Subclasses implement `select`; selecting nothing (None) evaluates the student as it is (the Base row)."""

    @abstractmethod
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]] | None:
        """(question, solution) pairs, exactly `inputs.budget` of them; None to train on nothing."""

    def run(self, inputs: TrainingInputs, ctx: RunContext) -> TrainingOutput:
        model, tokenizer = tiny_model.load(inputs.student_dir)
        pairs = self.select(inputs, ctx)
        if pairs is not None:
            ctx.record("training_pairs", len(pairs))
            ctx.record("unique_questions", len({q for q, _ in pairs}))
            encoded = [sft.encode_pair(tokenizer, q, r) for q, r in pairs]
            trace = sft.train(model, tokenizer.pad_token_id, encoded, inputs.sft, ctx.seed)
            ctx.record("sft_seconds", trace.train_s, "s", higher_is_better=False)
            ctx.record("sft_final_loss", trace.final_loss)
        answers = generation.generate(model, tokenizer, inputs.test_questions)
        ctx.record("test_problems_per_s", len(inputs.test_questions) / answers.seconds, "problems/s",
                   higher_is_better=True)
        return TrainingOutput(answers.texts)


def as_pairs(problems: Sequence[Problem]) -> list[tuple[str, str]]:
    return [(p.question, p.solution) for p in problems]


def record_skill_shares(ctx: RunContext, problems: Sequence[Problem]) -> None:
    """The selected data's skill mix (% of QA pairs containing each skill): where the budget went."""
    counts = Counter(s for p in problems for s in p.skills)
    for skill in generator.SKILLS:
        ctx.record(f"share_{skill}", 100.0 * counts.get(skill, 0) / max(1, len(problems)), "%")
