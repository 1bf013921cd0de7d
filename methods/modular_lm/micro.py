"""MiCRo (AlKhamissi et al., "Mixture of Cognitive Reasoners: Modular Reasoning with Brain-Like
Specialization", arXiv 2506.13331), in miniature: every block of the dense base cloned into four experts
(logic, social, world, language), then the three-stage curriculum of the authors' `main.py` (spec):

1. a short warm-up of the experts (and the shared embeddings and head), each token routed by its example's
   stage-1 label: the generator's domain (the spec's stage 1 routes pseudo-labelled sentences by their label), or,
   in the unsupervised-routing variant (`stage1_routing: clusters`), a k-means cluster of the text's words;
2. the routers alone on the same data with top-2 routing (the config's stage-2 top-k), the experts frozen,
   trained by the language-model loss only;
3. end to end on the mixed data with top-1 routing.

The label is read in stage 1 only, where the paper uses it; after it no loss, routing decision or batch
choice reads a domain label (tests/modular_lm/test_micro_labels.py breaks if one does). The stage shares, the
router MLP and the stage-2 learning rate are inferred (`params.MiCRoParams`; the rate chosen on the main corpus's
dev split). Inference routes top-1; ablation and steering act on the routers' logits.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness import Method, RunContext
from methods.modular_lm.finetune import record_losses, run_finetuned
from methods.modular_lm.inputs import Answer, ModularInputs
from methods.modular_lm.params import MiCRoParams


def curriculum(model: Any, stream: Any, params: MiCRoParams, seed: int,
               on_step: Callable[[int], Any] | None = None) -> tuple[Any, dict[str, list[float]]]:
    """Clone the blocks of `model` in place and run the three stages; returns the `Routing` and the losses.
    `on_step(offset)` gives each stage's `train_steps` hook (the validation curve), offset by the earlier stages."""
    from methods.common.corpus_training import batch_loss, train_steps
    from methods.modular_lm.blocks import clone_blocks, non_router_parameters, routers
    from methods.modular_lm.pseudo_labels import ClusterLabels

    routing = clone_blocks(model, params.experts, params.router_hidden, seed)
    stage1, stage2, stage3 = params.stage_steps()
    lr, size = params.learning_rate, params.batch_size
    hook = on_step or (lambda offset: None)
    labels: Callable[[Any], Any] = (
        ClusterLabels(stream, params.experts, model.config.vocab_size, seed).token_labels
        if params.stage1_routing == "clusters" else (lambda batch: batch.token_domains()))

    def routed_by_label(m: Any, batch: Any) -> Any:
        routing.fixed = labels(batch)
        try:
            return batch_loss(m, batch)
        finally:
            routing.fixed = None

    losses = {"stage1_loss": train_steps(model, stream, stage1, size, lr, non_router_parameters(model),
                                         routed_by_label, on_step=hook(0))}
    frozen = non_router_parameters(model)
    for p in frozen:
        p.requires_grad_(False)
    routing.top_k = params.stage2_top_k
    router_params = [p for r in routers(model) for p in r.parameters()]
    losses["stage2_loss"] = train_steps(model, stream, stage2, size, params.router_learning_rate, router_params,
                                        on_step=hook(stage1))
    for p in frozen:
        p.requires_grad_(True)
    routing.top_k = 1
    losses["stage3_loss"] = train_steps(model, stream, stage3, size, lr, on_step=hook(stage1 + stage2))
    return routing, losses


class MiCRo(Method[MiCRoParams]):
    def run(self, inputs: ModularInputs, ctx: RunContext) -> list[Answer]:
        def adapt(model: Any, stream: Any, curve: Any) -> Any:
            routing, losses = curriculum(model, stream, self.params, ctx.seed, curve.hook)
            for name, values in losses.items():
                record_losses(ctx, name, values)
            return routing

        return run_finetuned(inputs, ctx, self.params, adapt)
