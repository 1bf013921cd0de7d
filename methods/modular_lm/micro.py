"""MiCRo (AlKhamissi et al., "Mixture of Cognitive Reasoners: Modular Reasoning with Brain-Like
Specialization", arXiv 2506.13331), in miniature: every block of the dense base cloned into four experts
(logic, social, world, language), then the three-stage curriculum of the authors' `main.py` (spec):

1. the experts (and the shared embeddings and head) on domain data, each token routed by its example's domain
   label (the spec's stage 1 uses pseudo-labelled sentences; here the generator's domain is the label);
2. the routers alone on the same data with top-2 routing (the config's stage-2 top-k), the experts frozen;
3. end to end on the mixed data with top-1 routing.

The stage shares, the router MLP and the router's stage-2 loss (the language-model loss plus a cross-entropy
against the domain label at weight `router_label_weight`, 1 by default) are inferred (`params.MiCRoParams`).
Inference routes top-1; ablation and steering act on the routers' logits.
"""
from __future__ import annotations

from typing import Any

from harness import Method, RunContext
from methods.modular_lm.finetune import record_losses, run_finetuned
from methods.modular_lm.params import MiCRoParams
from methods.modular_lm.inputs import Answer, ModularInputs


def curriculum(model: Any, stream: Any, params: MiCRoParams, seed: int) -> tuple[Any, dict[str, list[float]]]:
    """Clone the blocks of `model` in place and run the three stages; returns the `Routing` and the losses."""
    import torch

    from methods.modular_lm.blocks import clone_blocks, non_router_parameters, routers
    from methods.common.corpus_training import batch_loss, train_steps

    routing = clone_blocks(model, params.experts, params.router_hidden, seed)
    stage1, stage2, stage3 = params.stage_steps()
    lr, size = params.learning_rate, params.batch_size

    def labelled(m: Any, batch: Any) -> Any:
        routing.fixed = batch.token_domains()
        try:
            return batch_loss(m, batch)
        finally:
            routing.fixed = None

    def router_loss(m: Any, batch: Any) -> Any:
        routing.keep_logits = params.router_label_weight > 0
        routing.logits.clear()
        loss = batch_loss(m, batch)
        if routing.keep_logits:
            keep = batch.attention_mask.bool()
            labels = batch.token_domains()[keep]
            loss = loss + params.router_label_weight * torch.stack([
                torch.nn.functional.cross_entropy(logits[keep], labels) for logits in routing.logits]).mean()
        routing.keep_logits = False
        routing.logits.clear()
        return loss

    losses = {"stage1_loss": train_steps(model, stream, stage1, size, lr, non_router_parameters(model), labelled)}
    frozen = non_router_parameters(model)
    for p in frozen:
        p.requires_grad_(False)
    routing.top_k = params.stage2_top_k
    router_params = [p for r in routers(model) for p in r.parameters()]
    losses["stage2_loss"] = train_steps(model, stream, stage2, size, params.router_learning_rate, router_params,
                                        router_loss)
    for p in frozen:
        p.requires_grad_(True)
    routing.top_k = 1
    losses["stage3_loss"] = train_steps(model, stream, stage3, size, lr)
    return routing, losses


class MiCRo(Method[MiCRoParams]):
    def run(self, inputs: ModularInputs, ctx: RunContext) -> list[Answer]:
        def adapt(model: Any, stream: Any) -> Any:
            routing, losses = curriculum(model, stream, self.params, ctx.seed)
            for name, values in losses.items():
                record_losses(ctx, name, values)
            return routing

        return run_finetuned(inputs, ctx, self.params, adapt)
