"""The representation a network's hidden layers use: SEM in the penultimate layer, or one of the rebuttal
set's regularisers in its place, applied to a stable-baselines3 MLP (an `nn.Sequential` of Linear and
activation modules, as `create_mlp` and `MlpExtractor` build them) without changing its training loop.

- `sem`: the penultimate Linear + activation becomes `SimNormLinear` (width L x V);
- `layernorm`: it becomes Linear (width L x V) -> LayerNorm -> the activation: SEM without the grouped softmax;
- `dropout`: a Dropout after every hidden activation;
- `spectral_norm`: the penultimate Linear's weight is spectrally normalised (Gogianu et al., 2021);
- `none`: the network as built.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from torch import nn
from torch.nn.utils.parametrizations import spectral_norm

from methods.rl_representations.sem import GROUP_SIZE, GROUPS, TEMPERATURE, SimNormLinear

Representation = Literal["none", "sem", "layernorm", "dropout", "spectral_norm"]
Placement = Literal["actor", "critic", "both"]


@dataclass(frozen=True)
class RepresentationSpec:
    """Which representation, where (actor, critic or both), and its settings."""

    kind: Representation = "none"
    placement: Placement = "both"
    groups: int = GROUPS
    group_size: int = GROUP_SIZE
    temperature: float = TEMPERATURE
    dropout: float = 0.1

    def applies_to(self, network: Literal["actor", "critic"]) -> bool:
        return self.kind != "none" and self.placement in (network, "both")


def represented(mlp: nn.Sequential, spec: RepresentationSpec, has_output: bool) -> tuple[nn.Sequential, int]:
    """`mlp` with `spec`'s representation and the width of its (new) penultimate features.

    `has_output`: the last Linear is the network's output layer (a Q-value, TD3's action), not a hidden one;
    it is rebuilt to read the new penultimate width.
    """
    modules = list(mlp)
    linears = _linears(modules)
    hidden = linears[:-1] if has_output else linears
    if not hidden:
        raise ValueError("a representation needs at least one hidden layer (net_arch is empty)")
    last, penultimate = hidden[-1]
    width = penultimate.out_features
    if spec.kind in ("sem", "layernorm"):
        in_features, width = penultimate.in_features, spec.groups * spec.group_size
        if spec.kind == "sem":
            replacement: list[nn.Module] = [SimNormLinear(in_features, spec.groups, spec.group_size, spec.temperature)]
        else:
            replacement = [nn.Linear(in_features, width), nn.LayerNorm(width), modules[last + 1]]
        modules[last:last + 2] = replacement
    elif spec.kind == "spectral_norm":
        modules[last] = spectral_norm(modules[last])
    elif spec.kind == "dropout":
        for index, _ in reversed(hidden):
            modules.insert(index + 2, nn.Dropout(spec.dropout))
    if has_output:
        position, output = _linears(modules)[-1]
        modules[position] = nn.Linear(width, output.out_features)
    return nn.Sequential(*modules), width


def _linears(modules: list[nn.Module]) -> list[tuple[int, nn.Linear]]:
    """The Linear layers of `modules`, with their positions."""
    return [(i, module) for i, module in enumerate(modules) if isinstance(module, nn.Linear)]
