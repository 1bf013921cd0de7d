"""A toy method that records learning curves, for the curve tests: loaded after `toy_family.py`.

Its `val_score` curve rises as 1 - decay**epoch (a faster `rate` climbs sooner), its `train_loss` falls
as decay**epoch, with a seed-dependent offset so seeds differ; `crash_at` makes it fail midway.
"""
from __future__ import annotations

from harness import Method, MethodParams, methods


class LearnerParams(MethodParams):
    rate: float = 0.5
    epochs: int = 5
    crash_at: int | None = None

class Learner(Method):
    params_model = LearnerParams

    def run(self, inputs, ctx):
        for epoch in range(1, self.params.epochs + 1):
            if epoch == self.params.crash_at:
                raise RuntimeError("the loss diverged")
            decay = (1.0 - self.params.rate) ** epoch
            ctx.record_point("val_score", epoch, 1.0 - decay + 0.01 * ctx.seed, "%", higher_is_better=True)
            ctx.record_point("train_loss", epoch, decay, higher_is_better=False)
        return inputs.copy()

methods.add("toy.learner", Learner, "toy method that records a rising validation curve per epoch", task="toy.sign")
