"""Random guessing: each answer drawn uniformly from the task's answer space as the prompt states it (a random
tile order, a random walk as long as the grid is wide, a random option, a random multiple of 5), with a random
score. The floor every other solver must clear."""
from __future__ import annotations

import numpy as np

from harness import Determinism, Method, RunContext
from methods.visual_reasoning.generators.chart import STEP, TOP
from methods.visual_reasoning.generators.maze import MOVES
from methods.visual_reasoning.params import SamplingParams
from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


def random_answer(puzzle: Puzzle, rng: np.random.Generator) -> str:
    if puzzle.kind == "jigsaw":
        return "Answer: " + " ".join(map(str, rng.permutation(puzzle.query["grid"] ** 2)))
    if puzzle.kind == "maze":
        return "Answer: " + " ".join(rng.choice(list(MOVES), size=puzzle.query["grid"]))
    if puzzle.kind == "search":
        return f"Answer: {rng.choice(list(puzzle.query['options']))}"
    return f"Answer: {STEP * rng.integers(1, TOP // STEP)}"


class RandomGuess(Method[SamplingParams]):
    determinism = Determinism.EVERYWHERE  # integer draws, scored by counting and ranks

    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        rng = np.random.default_rng(ctx.seed)
        return {p.id: [Answer(random_answer(p, rng), float(rng.random())) for _ in range(self.params.samples)]
                for p in inputs.puzzles}
