"""Inheriting a subset of a source's weights into a smaller student of the same family: a `Plan` names which
source layer each student layer comes from, which hidden channels, attention heads and FFN neurons it keeps,
and `inherit` copies those slices (embeddings, norms, attention, FFN; the LM head is tied). The selection and
pruning baselines differ only in how they choose the plan; MASA uses a plan for everything but the FFNs."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch

from methods.model_init.genes import group_layers
from methods.model_init.models import Shape, model_shape


@dataclass(frozen=True)
class Plan:
    """Source indices kept: `layers[j]` for student layer j, hidden `channels` (shared by every layer),
    `heads[j]` and `neurons[j]` of that source layer."""

    layers: tuple[int, ...]
    channels: torch.Tensor
    heads: tuple[torch.Tensor, ...]
    neurons: tuple[torch.Tensor, ...]


def evenly(total: int, keep: int) -> torch.Tensor:
    """`keep` indices spread evenly over range(total), first and last included (Xu et al.'s uniform selection)."""
    if keep > total:
        raise ValueError(f"cannot keep {keep} of {total}: a student may not be wider or deeper than its source")
    return torch.linspace(0, total - 1, keep).round().long()


def top(scores: torch.Tensor, keep: int) -> torch.Tensor:
    """The indices of the `keep` largest scores, in ascending index order (positions keep their order)."""
    return torch.topk(scores, keep).indices.sort().values


def head_rows(heads: torch.Tensor, head_dim: int) -> torch.Tensor:
    """The q/k/v rows (o columns) of whole heads: RoPE's pairs stay inside a head."""
    return (heads[:, None] * head_dim + torch.arange(head_dim)).reshape(-1)


def fitting_shapes(source: Any, student: Any) -> tuple[Shape, Shape]:
    """The two models' shapes, once checked that the student can inherit from the source: whole heads of the same
    width, and no dimension larger than the source's (a user's source folder is first seen here)."""
    source, student = model_shape(source), model_shape(student)
    if source.head_dim != student.head_dim:
        raise ValueError(f"the student's head width {student.head_dim} differs from the source's {source.head_dim}: "
                         "inheriting whole heads needs hidden / heads equal")
    for name in ("hidden", "layers", "heads", "ffn"):
        if getattr(student, name) > getattr(source, name):
            raise ValueError(f"the student's {name} ({getattr(student, name)}) exceeds the source's")
    return source, student


@torch.no_grad()
def inherit(student: Any, source: Any, plan: Plan, ffn: bool = True) -> None:
    """Copy the plan's slices of `source` into `student` (whose shape they must fit); `ffn=False` leaves the
    student's FFNs as they are (MASA writes its own)."""
    c = plan.channels
    s_model, t_model = source.model, student.model
    t_model.embed_tokens.weight.copy_(s_model.embed_tokens.weight[:, c])
    t_model.norm.weight.copy_(s_model.norm.weight[c])
    head_dim = s_model.layers[0].self_attn.head_dim
    for j, block in enumerate(t_model.layers):
        src = s_model.layers[plan.layers[j]]
        rows = head_rows(plan.heads[j], head_dim)
        block.input_layernorm.weight.copy_(src.input_layernorm.weight[c])
        block.post_attention_layernorm.weight.copy_(src.post_attention_layernorm.weight[c])
        for name in ("q_proj", "k_proj", "v_proj"):
            getattr(block.self_attn, name).weight.copy_(getattr(src.self_attn, name).weight[rows][:, c])
        block.self_attn.o_proj.weight.copy_(src.self_attn.o_proj.weight[c][:, rows])
        if ffn:
            n = plan.neurons[j]
            block.mlp.gate_proj.weight.copy_(src.mlp.gate_proj.weight[n][:, c])
            block.mlp.up_proj.weight.copy_(src.mlp.up_proj.weight[n][:, c])
            block.mlp.down_proj.weight.copy_(src.mlp.down_proj.weight[c][:, n])


def uniform_plan(source: Shape, student: Shape, layers: Sequence[int]) -> Plan:
    """Evenly spaced channels, heads and neurons of the given source layers."""
    heads = tuple(evenly(source.heads, student.heads) for _ in layers)
    neurons = tuple(evenly(source.ffn, student.ffn) for _ in layers)
    return Plan(tuple(layers), evenly(source.hidden, student.hidden), heads, neurons)


def magnitude_plan(source: Any, big: Shape, small: Shape, layers: Sequence[int]) -> Plan:
    """The given source layers' largest parts: hidden channels by embedding-column norm, heads by q/k/v/o weight
    energy, FFN neurons by |gate row| x |up row| x |down column| (magnitude pruning's choice)."""
    channels = top(source.model.embed_tokens.weight.norm(dim=0), small.hidden)
    heads, neurons = [], []
    for layer in layers:
        attn, mlp = source.model.layers[layer].self_attn, source.model.layers[layer].mlp
        rows = sum(getattr(attn, n).weight.pow(2).sum(1) for n in ("q_proj", "k_proj", "v_proj"))
        energy = rows + attn.o_proj.weight.pow(2).sum(0)
        heads.append(top(energy.view(big.heads, -1).sum(1), small.heads))
        neurons.append(top(mlp.gate_proj.weight.norm(dim=1) * mlp.up_proj.weight.norm(dim=1)
                           * mlp.down_proj.weight.norm(dim=0), small.ffn))
    return Plan(tuple(layers), channels, tuple(heads), tuple(neurons))


def inherit_rest(student: Any, source: Any, genes: int, choice: Literal["selection", "magnitude"] = "selection"
                 ) -> torch.Tensor:
    """MASA's non-FFN weights: the channels and heads of the first source layer of each student layer's gene group
    (`genes` groups), evenly spaced (`selection`) or the largest (`magnitude`), the FFNs left as they are. Returns
    the hidden channels kept, which the gene FFNs are cut to."""
    big, small = fitting_shapes(source, student)
    members, chosen = group_layers(big.layers, small.layers, genes)
    layers = [members[g][0] for g in chosen]
    plan = magnitude_plan(source, big, small, layers) if choice == "magnitude" else uniform_plan(big, small, layers)
    inherit(student, source, plan, ffn=False)
    return plan.channels
