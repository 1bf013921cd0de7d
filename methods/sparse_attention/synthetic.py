"""Structured synthetic Q/K/V: the attention patterns long-context heads show, planted where we know them.

Logits are q_i . k_j / sqrt(d) with q and k sums of orthogonal components, each planting one
pattern seen in real long-context heads (MInference's and ProxyAttn's analyses):
- a sink: token 0's key aligns with every query;
- local windows and slash lines: sinusoidal position features whose dot product depends on i - j
  only (RoPE-like), peaked at offset 0 (the window) and at a few fixed offsets (slashes);
- vertical lines: a few key tokens every query attends to;
- retrieval spans: short key spans matched by the queries that follow them, the needle a head must find;
- diffuse distractor blocks: whole key blocks moderately aligned with the mean query, so a pooled
  block score ranks them high although each token carries little mass: the case where pooling
  along the sequence (FlexPrefill's block-average) is misled and token-level scores are not.
Heads of one layer share the token positions (ProxyAttn's premise: heads share focus) and differ
in temperature (its second premise: heads differ in sparsity), with per-head noise on top.
So these patterns favour ProxyAttn over FlexPrefill by construction; `neutral.py` plants neither.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from methods.sparse_attention.problem import AttentionCase


@dataclass(frozen=True)
class LayerShape:
    """What every generator draws per seed: `layers` cases of one GQA layer's Q/K/V."""

    seq_len: int = 4096
    q_heads: int = 8
    kv_heads: int = 2
    head_dim: int = 64
    layers: int = 2

    def __post_init__(self) -> None:
        if self.q_heads % self.kv_heads:
            raise ValueError(f"q_heads {self.q_heads} is not a multiple of kv_heads {self.kv_heads}")


@dataclass(frozen=True)
class PatternSpec(LayerShape):
    sink: float = 3.0
    window: float = 2.0
    slashes: int = 2
    verticals: int = 4
    spans: int = 6
    span_len: int = 8
    needle: float = 4.5
    distractors: int = 6
    distractor: float = 1.5
    temperature_range: tuple[float, float] = (0.6, 1.6)
    noise: float = 0.35

    def __post_init__(self) -> None:
        super().__post_init__()
        content = self.head_dim - self.head_dim // 4 * 2
        if self.spans > content - 3:
            raise ValueError(f"spans: at most {content - 3} retrieval spans fit in head_dim {self.head_dim}, "
                             f"got {self.spans}")
        if self.span_len < 1 or self.seq_len < 4 * self.span_len + 64:
            raise ValueError(f"seq_len {self.seq_len} is too short for spans of {self.span_len} tokens")


def _unit_directions(count: int, dim: int, gen: torch.Generator) -> torch.Tensor:
    """`count` orthonormal directions in R^dim (count <= dim)."""
    basis, _ = torch.linalg.qr(torch.randn(dim, dim, generator=gen))
    return basis[:, :count].T.contiguous()


def relative_position_features(positions: torch.Tensor, dims: int, shift: float = 0.0) -> torch.Tensor:
    """cos/sin features whose dot product between positions i and j is sum_f cos(w_f (i - shift - j))."""
    freqs = 1.0 / (10.0 ** (torch.arange(dims // 2, dtype=torch.float32) * 3.0 / max(dims // 2 - 1, 1)))
    angle = (positions.float()[:, None] - shift) * freqs[None, :]
    return torch.cat([angle.cos(), angle.sin()], dim=1) / math.sqrt(dims // 2)


def structured_case(spec: PatternSpec, name: str, gen: torch.Generator) -> AttentionCase:
    n, d = spec.seq_len, spec.head_dim
    pos_dims = d // 4 * 2
    content = _unit_directions(d - pos_dims, d - pos_dims, gen)  # content directions, orthogonal to positions
    sink_dir, vertical_dir, distractor_dir, *needle_dirs = content
    scale = math.sqrt(d)
    positions = torch.arange(n)

    k = torch.zeros(n, d)
    q = torch.zeros(n, d)
    k[:, :pos_dims] = relative_position_features(positions, pos_dims)
    q[:, :pos_dims] = spec.window * scale * relative_position_features(positions, pos_dims)
    for _ in range(spec.slashes):
        offset = int(torch.randint(n // 64, n // 4, (1,), generator=gen))
        q[:, :pos_dims] += 0.8 * spec.window * scale * relative_position_features(positions, pos_dims, shift=offset)

    content_k = torch.zeros(n, d - pos_dims)
    content_q = torch.zeros(n, d - pos_dims)
    content_k[0] += sink_dir
    content_q += spec.sink * scale * sink_dir
    columns = torch.randint(1, n, (spec.verticals,), generator=gen)
    content_k[columns] += vertical_dir
    content_q += 0.7 * spec.sink * scale * vertical_dir
    for direction in needle_dirs[:spec.spans]:
        start = int(torch.randint(1, n - spec.span_len - 1, (1,), generator=gen))
        content_k[start:start + spec.span_len] += direction
        readers = torch.arange(start + spec.span_len, n)
        content_q[readers] += spec.needle * scale * direction
    block = max(n // 64, 16)
    for _ in range(spec.distractors):
        start = int(torch.randint(0, n - block, (1,), generator=gen))
        content_k[start:start + block] += distractor_dir * (0.5 + torch.rand(block, 1, generator=gen))
    content_q += spec.distractor * scale * distractor_dir
    k[:, pos_dims:] = content_k
    q[:, pos_dims:] = content_q

    low, high = spec.temperature_range
    temperatures = low + (high - low) * torch.rand(spec.q_heads, 1, 1, generator=gen)
    qs = temperatures * q[None] + spec.noise * torch.randn(spec.q_heads, n, d, generator=gen)
    ks = k[None] + spec.noise / scale * torch.randn(spec.kv_heads, n, d, generator=gen)
    vs = torch.randn(spec.kv_heads, n, d, generator=gen)
    return AttentionCase(name, qs.contiguous(), ks.contiguous(), vs.contiguous())


def structured_cases(spec: PatternSpec, seed: int) -> list[AttentionCase]:
    """`spec.layers` independent layers for one seed (each its own positions and temperatures)."""
    gen = torch.Generator().manual_seed(seed)
    return [structured_case(spec, f"seed{seed}/layer{layer}", gen) for layer in range(spec.layers)]
