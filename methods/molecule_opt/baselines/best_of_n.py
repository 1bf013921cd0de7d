"""Best-of-N random mutation: N candidates per task, each one to `max_edits` random RDKit edits of the source
(`mutation`), the one of highest reward kept (the source itself when none is valid). A non-learning reference
that queries the property oracle N times per task, which the policies never do at test time."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.molecule_opt.mutation import mutate
from methods.molecule_opt.params import MutationParams
from methods.molecule_opt.reward import reward
from methods.molecule_opt.task import Answers, OptInputs


class BestOfNMutation(Method[MutationParams]):
    def run(self, inputs: OptInputs, ctx: RunContext) -> Answers:
        rng = np.random.default_rng(ctx.seed)
        answers = {}
        for task in inputs.tasks:
            candidates = []
            for _ in range(self.params.candidates):
                smiles: str | None = task.source
                for _ in range(int(rng.integers(1, self.params.max_edits + 1))):
                    smiles = mutate(smiles, rng) if smiles is not None else None
                if smiles is not None:
                    candidates.append(smiles)
            answers[task.id] = max(candidates, key=lambda s: reward(task, s), default=task.source)
        return answers
