"""The simplicial embedding (SEM) layer of Obando-Ceron, Mayor et al., "Simplicial Embeddings Improve Sample
Efficiency in Actor-Critic Agents" (arXiv 2510.13704), as the released FastTD3 code's `SimNormLinear`:
z = LayerNorm(W h + b), cut into L groups of V, a softmax with temperature tau within each group. The features
then lie on a product of L simplices: bounded, sparse, near-discrete."""
from __future__ import annotations

import torch
from torch import nn

GROUPS = 8  # L, `seq_len` in the released code
GROUP_SIZE = 64  # V, `sim_dimension`
TEMPERATURE = 1.0  # tau


def simplicial_softmax(z: torch.Tensor, groups: int, temperature: float = TEMPERATURE) -> torch.Tensor:
    """A softmax over each of `groups` consecutive equal slices of the last dimension (SimNorm)."""
    if z.shape[-1] % groups:
        raise ValueError(f"a width of {z.shape[-1]} does not split into {groups} equal groups")
    grouped = z.reshape(*z.shape[:-1], groups, z.shape[-1] // groups)
    return torch.softmax(grouped / temperature, dim=-1).reshape(z.shape)


class SimNormLinear(nn.Module):
    """Linear -> LayerNorm -> L groups of V-way softmax: the layer that replaces a penultimate hidden layer."""

    def __init__(self, in_features: int, groups: int = GROUPS, group_size: int = GROUP_SIZE,
                 temperature: float = TEMPERATURE) -> None:
        super().__init__()
        if groups < 1 or group_size < 1 or temperature <= 0:
            raise ValueError("SEM needs groups >= 1, group_size >= 1 and a positive temperature")
        self.groups, self.temperature = groups, temperature
        self.linear = nn.Linear(in_features, groups * group_size)
        self.norm = nn.LayerNorm(groups * group_size)

    @property
    def out_features(self) -> int:
        return self.linear.out_features

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return simplicial_softmax(self.norm(self.linear(h)), self.groups, self.temperature)
