"""MoB, the mixture of blocks without the curriculum (spec: "block-cloned experts without the specialisation
curriculum"): the blocks cloned as MiCRo's, the routers initialised from the same seed, and everything trained
end to end with top-1 routing for MiCRo's whole step budget. Its experts carry index labels only."""
from __future__ import annotations

from typing import Any

from harness import Method, RunContext
from methods.modular_lm.finetune import record_losses, run_finetuned
from methods.modular_lm.params import MixtureParams
from methods.modular_lm.inputs import Answer, ModularInputs


class MoB(Method[MixtureParams]):
    def run(self, inputs: ModularInputs, ctx: RunContext) -> list[Answer]:
        from methods.modular_lm.blocks import clone_blocks
        from methods.common.corpus_training import train_steps

        def adapt(model: Any, stream: Any, curve: Any) -> Any:
            p = self.params
            routing = clone_blocks(model, p.experts, p.router_hidden, ctx.seed)
            record_losses(ctx, "finetune_loss", train_steps(model, stream, p.steps, p.batch_size, p.learning_rate,
                                                            on_step=curve.hook()))
            return routing

        return run_finetuned(inputs, ctx, self.params, adapt)
