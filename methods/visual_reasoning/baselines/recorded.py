"""Your model's recorded answers (a dataset's `answers_path`, read by `byo`), replayed as a method so they are
graded, tabulated and compared like every solver's. A puzzle the file does not answer gets an empty answer,
which counts as unanswered and wrong (the `answered` metric shows how many)."""
from __future__ import annotations

from harness import Method, RunContext
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


class RecordedAnswers(Method):
    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        recorded = inputs.source.recorded
        if recorded is None:
            raise ValueError("the dataset has no recorded answers: give its loader answers_path: <your JSONL>")
        return {p.id: [Answer(a.answer, a.score, a.images) for a in recorded.by_puzzle.get(p.id, ())] or [Answer("")]
                for p in inputs.puzzles}
