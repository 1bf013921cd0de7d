"""Neutral synthetic Q/K/V: concentrated attention with no method's failure mode or premise planted.

`synthetic.py` plants the patterns the papers argue from: heads that share positions (ProxyAttn's
premise) and diffuse distractor blocks that mislead sequence pooling (FlexPrefill's failure mode),
so its fidelity figures favour ProxyAttn by construction. Here nothing is placed:
- content: keys (one process per KV head) and queries (one per query head, drawn independently)
  are stationary Gaussian AR(1) processes along the sequence with correlation length `span`
  tokens, so attention falls on contiguous runs of keys (locally smooth, as the spec's methods
  assume) at positions no two heads agree on beyond chance;
- sharpness: head h's content logits q.k/sqrt(d) have standard deviation s_h, drawn iid per head
  from `sharpness_range` (heads differ in sparsity by chance, not by a schedule);
- locality: a RoPE-like relative-position term (`synthetic.relative_position_features`) of strength drawn
  iid per head from [0, `locality`], the recency bias every causal model has; no sink, no
  vertical or slash lines, no blocks whose pooled score exceeds their mass.
What it does not model: shared sinks and retrieval heads of trained models (the tiny model's
captured attention, `model_capture.py`, has those).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from scipy.signal import lfilter

from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.synthetic import LayerShape, relative_position_features


@dataclass(frozen=True)
class NeutralSpec(LayerShape):
    span: float = 32.0
    sharpness_range: tuple[float, float] = (1.5, 3.0)
    locality: float = 2.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.head_dim < 8:
            raise ValueError(f"head_dim {self.head_dim} is too small: at least 8 (a quarter holds positions)")
        if self.span < 1:
            raise ValueError(f"span {self.span} must be >= 1 token")
        low, high = self.sharpness_range
        if not 0 <= low <= high:
            raise ValueError(f"sharpness_range {list(self.sharpness_range)} must be [low, high] with 0 <= low <= high")
        if self.locality < 0:
            raise ValueError(f"locality {self.locality} must be >= 0")


def smooth_gaussian(count: int, seq_len: int, dims: int, span: float, gen: torch.Generator) -> torch.Tensor:
    """`count` stationary AR(1) processes [count, seq_len, dims], unit variance, correlation exp(-|i-j|/span).

    x_0 is drawn from the stationary law, so no position is special (a burn-in would waste draws).
    """
    rho = math.exp(-1.0 / span)
    innovation = math.sqrt(1.0 - rho * rho)
    noise = torch.randn(count, seq_len, dims, generator=gen, dtype=torch.float64)
    noise[:, 0] /= innovation  # so that x_0 = noise_0
    return torch.from_numpy(lfilter([innovation], [1.0, -rho], noise.numpy(), axis=1)).float()


def neutral_case(spec: NeutralSpec, name: str, gen: torch.Generator) -> AttentionCase:
    """One layer drawn as the module docstring says; `gen` advances, so layers of a seed differ."""
    n, d = spec.seq_len, spec.head_dim
    pos_dims = d // 8 * 2  # a quarter of the dimensions, even (cos/sin pairs)
    content = d - pos_dims
    scale = math.sqrt(d)
    positions = relative_position_features(torch.arange(n), pos_dims)  # [n, pos_dims], dot product peaks at i = j

    low, high = spec.sharpness_range
    sharpness = low + (high - low) * torch.rand(spec.q_heads, 1, 1, generator=gen)
    locality = spec.locality * torch.rand(spec.q_heads, 1, 1, generator=gen)
    q = torch.empty(spec.q_heads, n, d)
    k = torch.empty(spec.kv_heads, n, d)
    # content logit = s_h * (a . b) / sqrt(content) with a, b unit-variance: standard deviation s_h
    content_q = smooth_gaussian(spec.q_heads, n, content, spec.span, gen)
    q[..., pos_dims:] = sharpness * scale / math.sqrt(content) * content_q
    k[..., pos_dims:] = smooth_gaussian(spec.kv_heads, n, content, spec.span, gen)
    q[..., :pos_dims] = locality * scale * positions
    k[..., :pos_dims] = positions
    v = torch.randn(spec.kv_heads, n, d, generator=gen)
    return AttentionCase(name, q.contiguous(), k.contiguous(), v)


def neutral_cases(spec: NeutralSpec, seed: int) -> list[AttentionCase]:
    """`spec.layers` independent layers for one seed."""
    gen = torch.Generator().manual_seed(seed)
    return [neutral_case(spec, f"seed{seed}/layer{layer}", gen) for layer in range(spec.layers)]
