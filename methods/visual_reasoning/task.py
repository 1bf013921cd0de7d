"""The contract `visual_reasoning.puzzles`: answer generated, verifiable visual puzzles (ThinkMorph's four
tasks in miniature, arXiv 2510.27492).

A method sees the seed's test puzzles without their answers (image, prompt, and the prompt's facts as data)
and may generate training puzzles from a separate stream; it returns one or more answer texts per puzzle, each
with its own confidence score. The predictions table (`predictions_schema`) holds the raw texts: scoring extracts
and grades them, so stored answers and a user's model's (a suite's `predictions:` file) are scored by the same code.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.visual_reasoning.data import PuzzleSource, puzzles
from methods.visual_reasoning.grading import scored_answers
from methods.visual_reasoning.puzzle import TRAIN_STREAM, Puzzle


@dataclass(frozen=True)
class Answer:
    """One answer text; `score` is the method's confidence in it (higher is surer), `images` how many
    intermediate images it generated on the way."""

    text: str
    score: float = float("nan")
    images: int = 0


Answers = dict[str, list[Answer]]  # puzzle id -> its answers in the order drawn


@dataclass(frozen=True)
class PuzzleInputs:
    """The seed's test puzzles with `answer` and `truth` blanked, and the source to draw training puzzles from."""

    source: PuzzleSource
    seed: int
    puzzles: tuple[Puzzle, ...]

    def training_puzzles(self, count: int) -> list[Puzzle]:
        """`count` labelled puzzles of the same task and difficulty, disjoint from every seed's test puzzles."""
        return puzzles(self.source, self.seed, TRAIN_STREAM, count)


class VisualPuzzles(Task):
    """Generated visual puzzles; each seed is a new set of `count` puzzles."""

    # One row per answer, several numbered ones per puzzle. A method answers every puzzle (`predictions`); a
    # user's file may leave a puzzle out, which is graded as one unanswered answer.
    predictions_schema = PredictionsSchema(
        (Column("puzzle", "text", description="the puzzle's id, e.g. maze-easy-s0-0007"),
         Column("sample", "integer", description="0, 1, ...: the order the answers were drawn in"),
         Column("answer", "text", may_be_empty=True, description="the raw text; empty: unanswered"),
         Column("score", "number", may_be_empty=True, description="the method's confidence, for best-of-k"),
         Column("images", "integer", description="how many intermediate images came with the answer")),
        sample="puzzle", repeat="sample", every_sample=False)

    def test_samples(self, instance: Instance) -> list[str]:
        return list(instance.truth)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "visual_reasoning.puzzles", "the set's size is the loader's count")

    def instance(self, data: PuzzleSource, split: Mapping[str, Any], seed: int) -> Instance:
        test = puzzles(data, seed)
        hidden = tuple(replace(p, answer="", truth={}) for p in test)
        return Instance(inputs=PuzzleInputs(data, seed, hidden), truth={p.id: p for p in test})

    def tiny_instance(self, seed: int) -> Instance:
        """Eight easy mazes."""
        return self.instance(PuzzleSource("maze", "easy", 8), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        truth: dict[str, Puzzle] = instance.truth
        if not isinstance(output, dict):
            raise ValueError(f"a puzzle method returns {{puzzle id: [Answer, ...]}}, got {type(output).__name__}")
        missing = [name for name in truth if not output.get(name)]
        if missing:
            raise ValueError(f"{len(missing)} puzzle(s) have no answer, e.g. '{missing[0]}'")
        rows = [(name, k, answer.text, float(answer.score), int(answer.images))
                for name in truth for k, answer in enumerate(output[name])]
        table = pd.DataFrame(rows, columns=["puzzle", "sample", "answer", "score", "images"])
        return table.astype({"sample": np.int64, "images": np.int64})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_answers(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
