"""The task's split: which samples train the fixed model, which the deferral methods learn from, validate on
and are tested on; one new split per seed, stratified by class for classification."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

_FRACTIONS = {"model": 0.3, "train": 0.3, "val": 0.15}


@dataclass(frozen=True)
class SplitSpec:
    """Fractions of the samples per part (test: the rest) and the fixed model's capacity: it sees the
    first `model_components` principal components of x (None: every feature)."""

    model: float = 0.3
    train: float = 0.3
    val: float = 0.15
    model_components: int | None = None


def split_spec(split: Mapping[str, Any]) -> SplitSpec:
    """The suite's `split:` block checked; a `ValueError` names a wrong key or value."""
    unknown = sorted(str(key) for key in set(split) - {*_FRACTIONS, "model_components"})
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; allowed: {', '.join(_FRACTIONS)}, model_components")
    for key in _FRACTIONS:
        value = split.get(key, _FRACTIONS[key])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise ValueError(f"split key {key!r} must be a fraction in (0, 1), got {value!r}")
    spec = SplitSpec(**{key: float(split.get(key, default)) for key, default in _FRACTIONS.items()},
                     model_components=split.get("model_components"))
    if spec.model + spec.train + spec.val >= 1:
        raise ValueError(f"split fractions model + train + val must leave samples for test, got "
                         f"{spec.model} + {spec.train} + {spec.val}")
    components = spec.model_components
    if components is not None and (isinstance(components, bool) or not isinstance(components, int) or components < 1):
        raise ValueError(f"split key 'model_components' must be a positive integer or null, got {components!r}")
    return spec


def four_parts(strata: np.ndarray, spec: SplitSpec, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Row numbers of the model, train, validation and test parts, each stratum (class) cut by the fractions."""
    cuts = np.cumsum([spec.model, spec.train, spec.val])
    parts: list[list[np.ndarray]] = [[], [], [], []]
    for stratum in np.unique(strata):
        rows = rng.permutation(np.flatnonzero(strata == stratum))
        bounds = np.round(cuts * rows.size).astype(int)
        for part, chunk in zip(parts, np.split(rows, bounds), strict=True):
            part.append(chunk)
    return tuple(np.sort(np.concatenate(part)) for part in parts)
