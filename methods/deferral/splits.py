"""The task's split: which samples train the fixed model, which the deferral methods learn from, which train
Top-k(x)'s selector, which validate and which are tested on; one new split per seed, stratified by class for
classification."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

# Top-k(x)'s selector trains on its own part, so the validation figures that choose variants come from samples no
# learned component has seen; the test part stays at 25 %.
_FRACTIONS = {"model": 0.25, "train": 0.3, "selector": 0.1, "val": 0.1}


@dataclass(frozen=True)
class SplitSpec:
    """Fractions of the samples per part (test: the rest) and the fixed model's capacity: it sees the
    first `model_components` principal components of x (None: every feature)."""

    model: float = 0.25
    train: float = 0.3
    selector: float = 0.1
    val: float = 0.1
    model_components: int | None = None

    @property
    def fractions(self) -> tuple[float, float, float, float]:
        return self.model, self.train, self.selector, self.val


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
    if sum(spec.fractions) >= 1:
        raise ValueError("split fractions model + train + selector + val must leave samples for test, got "
                         + " + ".join(f"{value:g}" for value in spec.fractions))
    components = spec.model_components
    if components is not None and (isinstance(components, bool) or not isinstance(components, int) or components < 1):
        raise ValueError(f"split key 'model_components' must be a positive integer or null, got {components!r}")
    return spec


def split_parts(strata: np.ndarray, spec: SplitSpec, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Row numbers of the model, train, selector, validation and test parts, each stratum (class) cut by the
    fractions, so every part holds each class in proportion."""
    cuts = np.cumsum(spec.fractions)
    parts: list[list[np.ndarray]] = [[] for _ in range(len(cuts) + 1)]
    for stratum in np.unique(strata):
        rows = rng.permutation(np.flatnonzero(strata == stratum))
        bounds = np.round(cuts * rows.size).astype(int)
        for part, chunk in zip(parts, np.split(rows, bounds), strict=True):
            part.append(chunk)
    return tuple(np.sort(np.concatenate(part)) for part in parts)
