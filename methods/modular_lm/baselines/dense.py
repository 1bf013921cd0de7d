"""Dense: the seed's base fine-tuned on the mixed training data for the same steps and batch as the mixtures
(the spec's "base model fine-tuned on the same data")."""
from __future__ import annotations

from typing import Any

from harness import Method, RunContext
from methods.modular_lm.finetune import record_losses, run_finetuned
from methods.modular_lm.params import FinetuneParams
from methods.modular_lm.inputs import Answer, ModularInputs


class Dense(Method[FinetuneParams]):
    def run(self, inputs: ModularInputs, ctx: RunContext) -> list[Answer]:
        from methods.common.corpus_training import train_steps

        def adapt(model: Any, stream: Any, curve: Any) -> None:
            p = self.params
            record_losses(ctx, "finetune_loss", train_steps(model, stream, p.steps, p.batch_size, p.learning_rate,
                                                            on_step=curve.hook()))

        return run_finetuned(inputs, ctx, self.params, adapt)
