"""The miniature interleaved reasoner (issue 56), one method per variant of `reasoner.VARIANTS`: one-shot,
text-only chain of thought, visual-only and interleaved, each a small transformer trained per run on the same
generated training puzzles with the same size, optimiser and number of steps, answering by its own rollout
(first answer greedy, the others sampled; score = the log-probability of every token it wrote), on any of the
four tasks (`scripts`)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from harness import Method, RunContext
from methods.visual_reasoning.params import ReasonerParams
from methods.visual_reasoning.reasoner import Variant
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


class Reasoner(Method[ReasonerParams]):
    variant: ClassVar[Variant]

    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        from methods.visual_reasoning.reasoner import rollout, traces, vocabulary
        from methods.visual_reasoning.reasoner_model import CachedDecoder, network, train

        p = self.params
        sequences = [s for puzzle in inputs.training_puzzles(p.train_puzzles) for s in traces(puzzle, self.variant)]
        model = network(p.width, p.layers, p.heads, len(vocabulary(inputs.source.kind)))
        loss = train(model, sequences, p.steps, p.batch, p.lr, ctx.seed)
        ctx.record("train_sequences", len(sequences))
        ctx.record("train_loss", loss, higher_is_better=False)
        found = rollout(CachedDecoder(model), inputs.puzzles, self.variant, p.samples, p.temperature,
                        np.random.default_rng(ctx.seed))
        return {name: [Answer(text, score, pictures) for text, score, pictures in drawn]
                for name, drawn in found.items()}


class OneShotReasoner(Reasoner):
    variant = "oneshot"


class TextReasoner(Reasoner):
    variant = "text"


class VisualReasoner(Reasoner):
    variant = "visual"


class InterleavedReasoner(Reasoner):
    variant = "interleaved"
