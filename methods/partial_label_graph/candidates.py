"""Candidate label sets by the uniform protocol of PRODEN (Lv et al., ICML 2020) and PiCO
(Wang et al., ICLR 2022): every wrong label enters a graph's set independently with
probability q, the true label always does."""
from __future__ import annotations

import numpy as np


def uniform_candidates(
    y: np.ndarray, num_classes: int, q: float, rng: np.random.Generator, resample_singletons: bool = False,
) -> np.ndarray:
    """bool [n, num_classes]: row i is the candidate set of a sample with true label y[i].

    The expected set size is 1 + q (C - 1). `resample_singletons` redraws sets that came out
    as the true label alone (some implementations do; the PRISM paper does not say), which
    makes the problem a little harder than plain uniform sampling at the same q.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q is a probability and must lie in [0, 1], got {q!r}")
    if resample_singletons and (q == 0.0 or num_classes < 2):
        raise ValueError("resample_singletons needs q > 0 and at least two classes, or no set could hold a wrong label")
    mask = _draw(y, num_classes, q, rng)
    while resample_singletons and (single := mask.sum(axis=1) == 1).any():
        mask[single] = _draw(y[single], num_classes, q, rng)
    return mask


def _draw(y: np.ndarray, num_classes: int, q: float, rng: np.random.Generator) -> np.ndarray:
    mask = rng.random((y.size, num_classes)) < q
    mask[np.arange(y.size), y] = True
    return mask
