"""The miniature interleaved reasoner (issue 56), one method per variant of `reasoner.VARIANTS`: one-shot,
text-only chain of thought, visual-only and interleaved, each a small transformer trained per run on the same
generated training puzzles with the same size, optimiser and number of steps, answering by its own rollout
(first answer greedy, the others sampled; score = the log-probability of every token it wrote), on any of the
four tasks (`scripts`), trained on the run's level or on every level of its task (`train_on`)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from harness import Method, RunContext
from methods.visual_reasoning.params import ReasonerParams
from methods.visual_reasoning.puzzle import DIFFICULTIES
from methods.visual_reasoning.reasoner import Variant
from methods.visual_reasoning.task import Answer, Answers, PuzzleInputs


class Reasoner(Method[ReasonerParams]):
    variant: ClassVar[Variant]

    def run(self, inputs: PuzzleInputs, ctx: RunContext) -> Answers:
        from methods.visual_reasoning.reasoner import rollout
        from methods.visual_reasoning.reasoner_model import CachedDecoder, Recipe, shared_model, trained

        p, source = self.params, inputs.source
        levels = DIFFICULTIES if p.train_on == "task" else (source.difficulty,)
        recipe = Recipe(p.version, source.kind, levels, self.variant, p.train_puzzles, p.steps, p.batch, p.lr, p.width,
                        p.layers, p.heads)
        model, record = shared_model(recipe, ctx.seed) if p.train_on == "task" else trained(recipe, ctx.seed)
        ctx.record("train_sequences", record["train_sequences"])
        ctx.record("train_loss", record["train_loss"], higher_is_better=False)
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
