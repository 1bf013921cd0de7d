"""The family's datasets: generated attention patterns (planted, `synthetic.py`; neutral, `neutral.py`)
and Q/K/V captured from a model.

A dataset answers `cases(seed)`: the attention problems of one seed. Generated patterns draw new
positions per seed; a capture file holds P prompts and evaluates prompt `seed % P`, so seeds
are an axis over prompts.

Capture files are `.npz` with `q` [P, L, Hq, N, d], `k` and `v` [P, L, Hkv, N, d] (post-RoPE,
float16/float32) and optionally `layers` [L] (the model's layer indices, for the case names).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
import torch

from harness import DataError
from harness.array_files import read_npz
from methods.sparse_attention.neutral import NeutralSpec, neutral_cases
from methods.sparse_attention.problem import AttentionCase
from methods.sparse_attention.synthetic import PatternSpec, structured_cases

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Spec = TypeVar("Spec", bound="DataclassInstance")
_CAPTURE_HINT = "A capture file is an .npz holding q [P, L, Hq, N, d], k and v [P, L, Hkv, N, d]."


class AttentionData(Protocol):
    @property
    def source(self) -> str: ...

    def cases(self, seed: int) -> list[AttentionCase]: ...


@dataclass(frozen=True)
class GeneratedPatterns:
    """Cases a generator draws afresh for each seed from its spec."""

    spec: Any
    draw: Callable[[Any, int], list[AttentionCase]]
    source: str

    def cases(self, seed: int) -> list[AttentionCase]:
        return self.draw(self.spec, seed)


@dataclass(frozen=True)
class CapturedAttention:
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    layers: np.ndarray
    source: str

    def cases(self, seed: int) -> list[AttentionCase]:
        prompt = seed % self.q.shape[0]
        return [AttentionCase(f"prompt{prompt}/layer{int(layer)}",
                              *(torch.from_numpy(np.ascontiguousarray(a[prompt, i])) for a in (self.q, self.k, self.v)))
                for i, layer in enumerate(self.layers)]


def _generator_spec(spec_type: type[Spec], args: dict[str, Any]) -> Spec:
    """A generator's spec from a suite's `args`: unknown names and invalid values are `DataError`s."""
    known = {f.name: f for f in fields(spec_type)}
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise DataError(f"unknown argument {unknown[0]!r}", field=f"args.{unknown[0]}",
                        hint=f"Known: {', '.join(sorted(known))}.")
    args = dict(args)
    for name, value in args.items():  # YAML gives lists where the spec holds (low, high) tuples
        default = known[name].default
        if isinstance(default, tuple):
            if not isinstance(value, (list, tuple)) or len(value) != len(default):
                raise DataError(f"argument {name!r} must be a list of {len(default)} numbers, got {value!r}",
                                field=f"args.{name}")
            args[name] = tuple(value)
    try:
        return spec_type(**args)
    except ValueError as exc:
        raise DataError(str(exc), field="args") from None


def structured(**args: object) -> GeneratedPatterns:
    """Planted patterns with `PatternSpec`'s fields as arguments (sequence length, heads, pattern strengths)."""
    return GeneratedPatterns(_generator_spec(PatternSpec, args), structured_cases, "sparse_attention.structured")


def neutral(**args: object) -> GeneratedPatterns:
    """Neutral patterns with `NeutralSpec`'s fields as arguments: nothing planted for or against a method."""
    return GeneratedPatterns(_generator_spec(NeutralSpec, args), neutral_cases, "sparse_attention.neutral")


def load_captured(path: Path) -> CapturedAttention:
    """A capture file (see the module docstring); every problem is named with the file and the array."""
    path = Path(path)
    arrays = read_npz(path, _CAPTURE_HINT)
    missing = [name for name in ("q", "k", "v") if name not in arrays]
    if missing:
        raise DataError(f"capture file lacks array(s) {missing}", file=path, hint=_CAPTURE_HINT)
    q, k, v = arrays["q"], arrays["k"], arrays["v"]
    if q.ndim != 5 or k.shape != v.shape or k.ndim != 5 or q.shape[:2] != k.shape[:2] or q.shape[3:] != k.shape[3:]:
        raise DataError(f"arrays have shapes q {q.shape}, k {k.shape}, v {v.shape}; expected q [P, L, Hq, N, d] and "
                        "k, v [P, L, Hkv, N, d] sharing P, L, N, d", file=path)
    layers = arrays.get("layers", np.arange(q.shape[1]))
    if layers.shape != (q.shape[1],):
        raise DataError(f"array 'layers' has shape {layers.shape}, expected ({q.shape[1]},)", file=path)
    if q.shape[2] % k.shape[2]:
        raise DataError(f"{q.shape[2]} query heads do not divide into {k.shape[2]} KV heads", file=path,
                        hint="Grouped-query attention needs Hq to be a multiple of Hkv.")
    for name, array in (("q", q), ("k", k), ("v", v)):
        if array.dtype not in (np.float16, np.float32):
            raise DataError(f"array '{name}' has dtype {array.dtype}; expected float16 or float32", file=path)
        bad = np.argwhere(~np.isfinite(array))
        if bad.size:
            prompt, layer = (int(i) for i in bad[0][:2])
            raise DataError(f"array '{name}' has {len(bad)} non-finite values (first in prompt {prompt}, layer "
                            f"index {layer})", file=path, hint="Capture the tensors again.")
    return CapturedAttention(q, k, v, layers, str(path))
