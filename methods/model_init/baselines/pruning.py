"""Pruning the source down to the student's shape, two criteria:

- magnitude: keep the hidden channels with the largest embedding-column norms, the heads with the largest
  q/k/v/o weight norms and the FFN neurons with the largest |gate row| x |up row| x |down column|, of evenly
  spaced layers (first and last kept);
- structured (activation-aware, in the spirit of LLM-Pruner / ShortGPT): on calibration lines, keep the layers
  that change the residual stream most (block influence 1 - cos(h_in, h_out), ShortGPT), the hidden channels
  with the largest residual RMS, the heads whose outputs have the largest mean norm and the neurons with the
  largest mean |silu(gate) x up| x |down column|."""
from __future__ import annotations

from typing import Any

import torch

from harness import RunContext
from methods.model_init.inherit import Plan, fitting_shapes, inherit, magnitude_plan, top
from methods.model_init.method import Initialiser, Origins, calibration_ids, evenly_spaced_layers
from methods.model_init.params import CalibratedParams, InitParams
from methods.model_init.task import InitInputs
from methods.common.vocab import PAD


class MagnitudePrune(Initialiser[InitParams]):
    @torch.no_grad()
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        big, small = fitting_shapes(source, student)
        layers = evenly_spaced_layers(big.layers, small.layers)
        inherit(student, source, magnitude_plan(source, big, small, layers))
        return [[layer] for layer in layers]


class StructuredPrune(Initialiser[CalibratedParams]):
    @torch.no_grad()
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        big, small = fitting_shapes(source, student)
        ids = calibration_ids(inputs, self.params.calib_tokens)
        mask = ids != PAD
        stats = _activations(source, ids)
        influence = torch.stack([1 - torch.cosine_similarity(a[mask], b[mask], dim=-1).mean()
                                 for a, b in stats["blocks"]])
        layers = top(influence, small.layers).tolist()
        residual = torch.cat([a[mask] for a, _ in stats["blocks"]])
        channels = top(residual.pow(2).mean(0).sqrt(), small.hidden)
        heads, neurons = [], []
        for layer in layers:
            per_head = stats["heads"][layer][mask].view(-1, big.heads, big.head_dim).norm(dim=-1).mean(0)
            heads.append(top(per_head, small.heads))
            down = source.model.layers[layer].mlp.down_proj.weight.norm(dim=0)
            neurons.append(top(stats["neurons"][layer][mask].abs().mean(0) * down, small.ffn))
        inherit(student, source, Plan(tuple(layers), channels, tuple(heads), tuple(neurons)))
        return [[layer] for layer in layers]


def _activations(source: Any, ids: torch.Tensor) -> dict[str, list[Any]]:
    """Per layer: the block's (input, output) hidden states, the heads' concatenated outputs (o_proj's input)
    and the neurons' activations (down_proj's input)."""
    stats: dict[str, list[Any]] = {"blocks": [], "heads": [], "neurons": []}
    hooks = []
    for block in source.model.layers:
        hooks.append(block.register_forward_hook(
            lambda _m, args, out, s=stats: s["blocks"].append((args[0], out[0] if isinstance(out, tuple) else out)),
            with_kwargs=False))
        hooks.append(block.self_attn.o_proj.register_forward_hook(lambda _m, a, _o, s=stats: s["heads"].append(a[0])))
        hooks.append(block.mlp.down_proj.register_forward_hook(lambda _m, a, _o, s=stats: s["neurons"].append(a[0])))
    try:
        source(input_ids=ids, attention_mask=(ids != PAD).long(), use_cache=False)
    finally:
        for hook in hooks:
            hook.remove()
    return stats
