"""The nearest-neighbour reference: each task answered by its reference molecule, the most similar MOSES-train
pool molecule that improves every objective at similarity >= delta (`references`), found by the method itself
from the source, the same search that made the training demonstrations. Where the pool holds none, it answers the
source unchanged, a failure under both success rules: test sources are not filtered to solvable ones, so its
success rate is the share of sources with an improving pool neighbour at delta, not 100 % by construction."""
from __future__ import annotations

from harness import Method, RunContext
from methods.molecule_opt.chem import profile
from methods.molecule_opt.references import nearest_reference
from methods.molecule_opt.task import Answers, OptInputs


class NearestNeighbour(Method):
    def run(self, inputs: OptInputs, ctx: RunContext) -> Answers:
        pool = inputs.pool()
        answers = {}
        for task in inputs.tasks:
            source = profile(task.source)
            found = None if source is None else nearest_reference(source, task.objectives, task.delta, pool)
            answers[task.id] = found or task.source
        ctx.record("found", 100.0 * sum(a != t.source for a, t in zip(answers.values(), inputs.tasks, strict=True))
                   / len(inputs.tasks), "%")
        return answers
