"""The mixture of blocks: each decoder block of the dense base cloned into E experts (attention + MLP, the
transformers `LlamaDecoderLayer` itself) with a per-layer router MLP choosing one expert per token (MiCRo,
arXiv 2506.13331; spec: "Clone every transformer block ... a small MLP per layer routes each token to one
expert (top-1)").

Every expert runs the whole sequence and each token keeps the output of its chosen expert, so a token's
attention reads keys and values its expert computed from the (shared) layer input; the active parameters per
token are the dense model's. How routing is decided is set on the shared `Routing` object, not in the
forward's arguments, so the Llama model's own loop drives the layers unchanged:

- `fixed`: a (batch, seq) tensor of expert ids (MiCRo's stage 1: the domain label of the example);
- learned top-k (stage 2: top-2 with the chosen probabilities renormalised; stage 3 and inference: top-1 with a
  straight-through weight, 1 in the forward pass and the chosen probability's gradient in the backward pass);
- `removed` experts (ablation: their tokens go to the next best expert) and a `bias` added to the router's
  logits (steering).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn


@dataclass
class Routing:
    """The routing rule every layer of one model follows, and what the layers recorded."""

    top_k: int = 1
    fixed: torch.Tensor | None = None
    removed: tuple[int, ...] = ()
    bias: torch.Tensor | None = None
    record: bool = False
    keep_logits: bool = False  # stage 2's label loss reads the routers' logits
    chosen: list[torch.Tensor] = field(default_factory=list)  # per layer: (batch, seq) expert ids
    logits: list[torch.Tensor] = field(default_factory=list)  # per layer: (batch, seq, E) router logits

    def weights(self, logits: torch.Tensor) -> torch.Tensor:
        """(batch, seq, E) mixing weights of the experts' outputs for router `logits`."""
        experts = logits.shape[-1]
        if self.keep_logits:
            self.logits.append(logits)
        if self.fixed is not None:
            chosen = self.fixed
            weights = nn.functional.one_hot(chosen, experts).to(logits.dtype)
        else:
            if self.bias is not None:
                logits = logits + self.bias
            if self.removed:
                mask = torch.zeros(experts, dtype=torch.bool, device=logits.device)
                mask[list(self.removed)] = True
                logits = logits.masked_fill(mask, float("-inf"))
            probs = logits.softmax(dim=-1)
            top, index = probs.topk(self.top_k, dim=-1)
            chosen = index[..., 0]
            if self.top_k == 1:
                hard = nn.functional.one_hot(chosen, experts).to(probs.dtype)
                weights = hard + (probs * hard - (probs * hard).detach())  # exactly one-hot forward
            else:
                weights = torch.zeros_like(probs).scatter(-1, index, top / top.sum(dim=-1, keepdim=True))
        if self.record:
            self.chosen.append(chosen.detach())
        return weights


class MixtureOfBlocks(nn.Module):
    """`experts` clones of one decoder `layer` and a router (Linear-GELU-Linear) over the layer's input."""

    def __init__(self, layer: nn.Module, experts: int, router_hidden: int, routing: Routing, hidden_size: int):
        super().__init__()
        self.experts = nn.ModuleList(copy.deepcopy(layer) for _ in range(experts))
        self.router = nn.Sequential(nn.Linear(hidden_size, router_hidden), nn.GELU(),
                                    nn.Linear(router_hidden, experts))
        self.routing = routing

    def forward(self, hidden_states: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        weights = self.routing.weights(self.router(hidden_states))
        outputs = [expert(hidden_states, *args, **kwargs) for expert in self.experts]
        as_tuple = isinstance(outputs[0], tuple)
        stacked = torch.stack([out[0] if as_tuple else out for out in outputs], dim=-2)
        mixed = (stacked * weights.unsqueeze(-1)).sum(dim=-2)
        return (mixed, *outputs[0][1:]) if as_tuple else mixed


def clone_blocks(model: Any, experts: int, router_hidden: int, seed: int) -> Routing:
    """Replace every decoder layer of a transformers Llama `model` by a mixture of its clones, in place; the
    routers are initialised from `seed`. Returns the `Routing` all layers share."""
    torch.manual_seed(seed)
    routing = Routing()
    layers = model.model.layers
    hidden = model.config.hidden_size
    for i in range(len(layers)):
        layers[i] = MixtureOfBlocks(layers[i], experts, router_hidden, routing, hidden)
    return routing


def routers(model: Any) -> list[nn.Module]:
    """The routers of a Llama whose blocks `clone_blocks` replaced."""
    return [layer.router for layer in model.model.layers if isinstance(layer, MixtureOfBlocks)]


def non_router_parameters(model: Any) -> list[nn.Parameter]:
    """Every parameter but the routers' (stage 1 trains these; stage 2 freezes them)."""
    router_ids = {id(p) for router in routers(model) for p in router.parameters()}
    return [p for p in model.parameters() if id(p) not in router_ids]
