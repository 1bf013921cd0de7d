"""The contract `visual_reasoning.puzzles`: answer generated, verifiable visual puzzles (ThinkMorph's four
tasks in miniature, arXiv 2510.27492).

A method sees the seed's test puzzles without their answers (image, prompt, and the prompt's facts as data)
and may generate training puzzles from a separate stream; it returns one or more answer texts per puzzle, each
with its own confidence score. The predictions table (`scored.COLUMNS`) holds the raw texts: scoring extracts
and grades them, so stored and user-supplied answers are re-scored by the same code.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from methods.visual_reasoning.data import PuzzleSource, puzzles
from methods.visual_reasoning.puzzle import TRAIN_STREAM, Puzzle
from methods.visual_reasoning.scored import scored_answers


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

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "visual_reasoning.puzzles", "the set's size is the loader's count")

    def instance(self, data: PuzzleSource, split: Mapping[str, Any], seed: int) -> Instance:
        test = puzzles(data, seed)
        hidden = tuple(replace(p, answer="", truth={}) for p in test)
        return Instance(inputs=PuzzleInputs(data, seed, hidden), truth={p.id: p for p in test})

    def tiny_instance(self, seed: int) -> Instance:
        """Eight easy search puzzles, with the classical solver's answers recorded for the `recorded` method."""
        from methods.visual_reasoning.byo import RecordedAnswer, RecordedAnswers
        from methods.visual_reasoning.solvers import solve

        source = PuzzleSource("search", "easy", 8)
        recorded = RecordedAnswers("tiny", {p.id: (RecordedAnswer(0, solve(p), 1.0, 0),)
                                            for p in puzzles(source, seed)})
        return self.instance(replace(source, recorded=recorded), {}, seed)

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
