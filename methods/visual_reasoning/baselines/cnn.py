"""A small CNN trained per run on generated training puzzles of the run's task and difficulty (CPU, seconds),
answering through `cnn_encodings`. The learned reference: what pattern recognition without the task's
algorithm reaches on each task, between random guessing and the classical solver."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.visual_reasoning.params import CnnParams
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


class SmallCnn(Method[CnnParams]):
    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        from methods.visual_reasoning.cnn_encodings import answers, classes, training_examples
        from methods.visual_reasoning.cnn_model import Classifier

        train = inputs.training_puzzles(self.params.train_puzzles)
        examples = training_examples(train)
        model = Classifier(examples, classes(train[0]), self.params.width, self.params.epochs, self.params.lr,
                           ctx.seed)
        ctx.record("train_examples", len(examples.x))
        found = answers(model.log_probabilities, inputs.puzzles, self.params.samples, self.params.temperature,
                        np.random.default_rng(ctx.seed))
        return {name: [Answer(text, score) for text, score in drawn] for name, drawn in found.items()}
