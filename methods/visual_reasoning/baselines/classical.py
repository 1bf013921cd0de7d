"""The classical solver of each task (`solvers`: edge matching, BFS on the map read from the image, template
matching, reading the bars back). Deterministic: its N answers to a puzzle are the same one, scored 1."""
from __future__ import annotations

from harness import Determinism, Method, RunContext
from methods.visual_reasoning.params import SamplingParams
from methods.visual_reasoning.solvers import solve
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


class ClassicalSolver(Method[SamplingParams]):
    determinism = Determinism.EVERYWHERE  # exact rules on integer grids, scored by counting and ranks

    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        return {p.id: [Answer(solve(p), 1.0)] * self.params.samples for p in inputs.puzzles}
