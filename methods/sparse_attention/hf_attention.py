"""A Hugging Face Llama/Qwen2 model whose prefill attention is a `BlockSparseMethod`; decode stays dense.

ProxyAttn is a prefill method (shared/papers/proxyattn.md): every layer's prefill attention is replaced by
`estimate` + `attend` on that layer's post-RoPE Q/K/V, exactly the problem the fidelity task scores, while
decode steps (q_len == 1, or q_len != k_len) run transformers' own SDPA path over the full KV cache.

The switch goes through transformers' `AttentionInterface` (4.57): `sparse_prefill` registers an attention
function and a mask function (SDPA's, so the model builds exactly the masks SDPA would get) under a name of
its own, switches the model to it with `set_attn_implementation`, and restores and unregisters on exit.
transformers offers no unregister call, so the names are removed from the interfaces' class mappings.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import DTypeLike
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

from methods.sparse_attention.fidelity import causal_pair_density
from methods.sparse_attention.problem import AttentionCase

if TYPE_CHECKING:  # a method is handed in; the module need not import the methods
    from methods.sparse_attention.method import BlockSparseMethod

_names = itertools.count()


@dataclass(frozen=True)
class LayerPrefill:
    """What one layer's sparse prefill did: its mask's causal-pair density, its timings, any fallback."""

    layer: int
    seq_len: int
    density: float
    estimation_ms: float
    attention_ms: float
    fallback: str | None


@dataclass
class PrefillStats:
    """Per-layer records of the prefills run under `sparse_prefill`, and how many attention calls were dense decode."""

    layers: list[LayerPrefill] = field(default_factory=list)
    decode_calls: int = 0

    def reset(self) -> None:
        self.layers.clear()
        self.decode_calls = 0

    @property
    def density(self) -> float:
        """Mean over the recorded layers (NaN before any prefill)."""
        return float(np.mean([r.density for r in self.layers])) if self.layers else math.nan

    @property
    def estimation_ms(self) -> float:
        return sum(r.estimation_ms for r in self.layers)

    @property
    def attention_ms(self) -> float:
        return sum(r.attention_ms for r in self.layers)

    @property
    def fallbacks(self) -> int:
        return sum(r.fallback is not None for r in self.layers)


def _is_prefill(query: torch.Tensor, key: torch.Tensor) -> bool:
    return query.shape[2] > 1 and query.shape[2] == key.shape[2]


def _check_prefill(module: torch.nn.Module, query: torch.Tensor, attention_mask: torch.Tensor | None,
                   dropout: float, scaling: float | None, sliding_window: int | None) -> None:
    """`ValueError` for a prefill the block-sparse backend cannot compute exactly as the model would."""
    batch, _, seq_len, dim = query.shape
    where = f"layer {getattr(module, 'layer_idx', '?')}"
    if batch != 1:
        raise ValueError(f"{where}: sparse prefill takes one prompt at a time (batch 1), got batch {batch}")
    if attention_mask is not None:
        raise ValueError(f"{where}: sparse prefill got an attention mask (padding, packing or a custom mask); "
                         "it computes plain causal attention over one unpadded prompt")
    if sliding_window is not None and seq_len > sliding_window:
        raise ValueError(f"{where}: the layer uses sliding-window attention ({sliding_window} tokens) and the prompt "
                         f"has {seq_len}; block-sparse prefill covers full causal attention only")
    if dropout:
        raise ValueError(f"{where}: attention dropout {dropout} is on; sparse prefill is for inference (model.eval())")
    if scaling is None or not math.isclose(scaling, dim**-0.5, rel_tol=1e-6):
        raise ValueError(f"{where}: attention scaling {scaling} is not 1/sqrt(head_dim) = {dim**-0.5:.6g}; "
                         "the family's kernels compute softmax(Q K^T / sqrt(d)) only")


def _attention_function(method: BlockSparseMethod, block_size: int, stats: PrefillStats) -> Callable[..., Any]:
    def attention(module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                  attention_mask: torch.Tensor | None, dropout: float = 0.0, scaling: float | None = None,
                  **kwargs: Any) -> tuple[torch.Tensor, None]:
        if not _is_prefill(query, key):
            stats.decode_calls += 1
            return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout,
                                          scaling=scaling, **kwargs)
        _check_prefill(module, query, attention_mask, dropout, scaling, kwargs.get("sliding_window"))
        layer = int(getattr(module, "layer_idx", len(stats.layers)))
        case = AttentionCase(f"layer{layer}", query[0].contiguous(), key[0].contiguous(), value[0].contiguous())
        result = method.prefill(case, block_size)
        density = causal_pair_density(result.estimate.mask, case.seq_len, block_size)
        stats.layers.append(LayerPrefill(layer, case.seq_len, density, result.estimation_ms, result.attention_ms,
                                         result.estimate.fallback))
        return result.output.transpose(0, 1)[None].contiguous(), None  # [Hq, N, d] -> [1, N, Hq, d]

    return attention


@contextmanager
def attention_implementation(model: Any, function: Callable[..., Any], label: str) -> Iterator[None]:
    """`model` with `function` as its attention (and SDPA's masks) for the duration; restored on exit."""
    name = f"harness_{label}_{next(_names)}"
    AttentionInterface.register(name, function)
    AttentionMaskInterface.register(name, sdpa_mask)
    previous = model.config._attn_implementation
    try:
        model.set_attn_implementation(name)
        if model.config._attn_implementation != name:
            raise ValueError(f"{type(model).__name__} does not dispatch its attention through transformers' "
                             "AttentionInterface; sparse prefill supports Llama- and Qwen2-style models")
        yield
    finally:
        model.set_attn_implementation(previous)
        AttentionInterface._global_mapping.pop(name, None)
        AttentionMaskInterface._global_mapping.pop(name, None)


@contextmanager
def sparse_prefill(model: Any, method: BlockSparseMethod, block_size: int) -> Iterator[PrefillStats]:
    """Within the block, every prefill of `model` attends through `method` at `block_size`; yields the stats."""
    stats = PrefillStats()
    with attention_implementation(model, _attention_function(method, block_size, stats), "sparse_prefill"):
        yield stats


def capture_qkv(model: Any, input_ids: torch.Tensor, layers: Sequence[int] | None = None,
                dtype: DTypeLike = np.float32) -> dict[str, np.ndarray]:
    """The post-RoPE Q [L, Hq, N, d] and K, V [L, Hkv, N, d] of one prefill of `input_ids` ([N] or [1, N]),
    with `layers` [L] (default every layer): one prompt of a capture file (`data.load_captured` stacks P)."""
    ids = input_ids.reshape(1, -1).to(model.device)
    count = model.config.num_hidden_layers
    wanted = list(range(count)) if layers is None else [int(i) for i in layers]
    outside = sorted(i for i in wanted if not 0 <= i < count)
    if outside:
        raise ValueError(f"layer(s) {outside} do not exist; the model has {count} (0 to {count - 1})")
    captured: dict[int, tuple[np.ndarray, ...]] = {}

    def capture(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                attention_mask: torch.Tensor | None, **kwargs: Any) -> tuple[torch.Tensor, None]:
        if module.layer_idx in wanted:  # transformers' attention modules carry their layer's index
            captured[module.layer_idx] = tuple(t[0].detach().float().cpu().numpy().astype(dtype)
                                               for t in (query, key, value))
        return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)

    with attention_implementation(model, capture, "capture_qkv"), torch.no_grad():
        model(input_ids=ids, use_cache=False)
    return {"q": np.stack([captured[i][0] for i in wanted]), "k": np.stack([captured[i][1] for i in wanted]),
            "v": np.stack([captured[i][2] for i in wanted]), "layers": np.asarray(wanted, dtype=np.int64)}
