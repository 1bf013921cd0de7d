"""GRACE (Panigrahi et al., ICLR 2026, arXiv 2511.02833): GRAdient Cross-validation Evaluation of a teacher
for distillation, with its Bias/Variance split and the G-Norm and G-Vendi baselines, on projected gradients.

The score follows the authors' `GRACE/GRACE_computation.py` (spec: shared/papers/grace.md): Monte-Carlo
cross-validation at the prompt level (split i permutes the prompts with `default_rng(seed0 + i)` and holds out
the last max(1, floor(n_prompts * test_fraction)) of them, as the released code does); the training part's
gradients are normalised to unit length, Σ̃ = mean ĥĥᵀ is eigendecomposed, its eigenvalues clipped at 1e-12
and smoothed towards their mean, λ' = (1 - α)λ + α·mean(λ); the held-out gradients stay raw and score
tr(Σ̂⁻¹ Σ_te). Lower is better. Everything is float64 numpy.

Left out: the notes' rescaling of h by response length (log|y|) is not in the released code, so it is not
offered here; the loss's token mean is the only length normalisation.

Naming: a different "GRACE" (arXiv 2605.13130, reasoning-data curation) is unrelated.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

EIGEN_FLOOR = 1e-12  # the released code's clip for eigenvalues and row norms


@dataclass(frozen=True)
class GraceScores:
    """GRACE and its split into the mean-gradient (bias) and centred (variance) terms; lower is better.

    `grace`, `bias`, `variance` are means over the splits; `*_per_split` keep each split's value, and
    bias + variance = grace holds per split (held-out covariance taken with 1/n, as Σ_te is)."""

    grace: float
    bias: float
    variance: float
    grace_per_split: tuple[float, ...]
    bias_per_split: tuple[float, ...]
    variance_per_split: tuple[float, ...]


def prompt_splits(prompt_ids: np.ndarray, n_splits: int = 10, test_fraction: float = 0.1,
                  seed0: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train_idx, test_idx) row indices per split; every response of a prompt falls on the same side.

    Prompts are taken in sorted order of their ids, so rows laid out prompt by prompt with ids 0..n-1 give the
    released code's splits; split i is seeded with seed0 + i."""
    prompt_ids = np.asarray(prompt_ids)
    if prompt_ids.ndim != 1:
        raise ValueError(f"prompt_ids must be one id per example, got shape {prompt_ids.shape}")
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction}")
    if n_splits < 1:
        raise ValueError(f"n_splits must be at least 1, got {n_splits}")
    prompts = np.unique(prompt_ids)
    n_test = max(1, int(len(prompts) * test_fraction))
    n_train = len(prompts) - n_test
    if n_train < 1:
        raise ValueError(f"{len(prompts)} prompts leave none for training at test_fraction={test_fraction}")
    splits = []
    for i in range(n_splits):
        order = np.random.default_rng(seed0 + i).permutation(len(prompts))
        held_out = np.isin(prompt_ids, prompts[order[n_train:]])
        splits.append((np.flatnonzero(~held_out), np.flatnonzero(held_out)))
    return splits


def unit_rows(gradients: np.ndarray) -> np.ndarray:
    """Each row divided by its length (floored at 1e-12, so a zero gradient stays zero)."""
    norms = np.linalg.norm(gradients, axis=1, keepdims=True)
    return gradients / np.maximum(norms, EIGEN_FLOOR)


def normalised_covariance(gradients: np.ndarray) -> np.ndarray:
    """Σ̃ = mean ĥĥᵀ of the unit-length rows (trace 1 when no row is zero)."""
    unit = unit_rows(gradients)
    return unit.T @ unit / len(unit)


def smoothed_eigen(covariance: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues λ' = (1 - α)·clip(λ) + α·mean(clip(λ)) and eigenvectors (columns) of Σ̃.

    mean(λ) = 1/d for a trace-1 Σ̃, so this is the paper's Σ̃ + (ν/d)·I with ν ≈ α, up to the (1 - α)."""
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    eigenvalues = np.clip(eigenvalues, EIGEN_FLOOR, None)
    smoothed = (1.0 - alpha) * eigenvalues + alpha * eigenvalues.mean()
    return np.clip(smoothed, EIGEN_FLOOR, None), eigenvectors


def _check(gradients: np.ndarray, prompt_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gradients = np.asarray(gradients, dtype=np.float64)
    prompt_ids = np.asarray(prompt_ids)
    if gradients.ndim != 2:
        raise ValueError(f"gradients must be N x d, got shape {gradients.shape}")
    if prompt_ids.shape != (len(gradients),):
        raise ValueError(f"prompt_ids must hold one id per gradient row ({len(gradients)}), got {prompt_ids.shape}")
    return gradients, prompt_ids


def grace_score(gradients: np.ndarray, prompt_ids: np.ndarray, *, alpha: float = 1e-3, n_splits: int = 10,
                test_fraction: float = 0.1, seed0: int = 0) -> GraceScores:
    """GRACE = mean over splits of tr(Σ̂⁻¹ Σ_te); Bias = μ_teᵀ Σ̂⁻¹ μ_te, Variance = the centred rest.

    Σ̂ is built from the unit-normalised training-part gradients, so rescaling those rows changes nothing,
    while the held-out gradients enter raw: scaling them by c scales every term by c²."""
    gradients, prompt_ids = _check(gradients, prompt_ids)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    per_split = []
    for train_idx, test_idx in prompt_splits(prompt_ids, n_splits, test_fraction, seed0):
        eigenvalues, eigenvectors = smoothed_eigen(normalised_covariance(gradients[train_idx]), alpha)
        coordinates = gradients[test_idx] @ eigenvectors  # held-out h in Σ̃'s eigenbasis
        mean = coordinates.mean(axis=0)
        total = float(np.mean(np.sum(coordinates ** 2 / eigenvalues, axis=1)))
        bias = float(np.sum(mean ** 2 / eigenvalues))
        variance = float(np.mean(np.sum((coordinates - mean) ** 2 / eigenvalues, axis=1)))
        per_split.append((total, bias, variance))
    totals, biases, variances = (tuple(column) for column in zip(*per_split, strict=True))
    return GraceScores(grace=float(np.mean(totals)), bias=float(np.mean(biases)),
                       variance=float(np.mean(variances)), grace_per_split=totals,
                       bias_per_split=biases, variance_per_split=variances)


def g_norm(gradients: np.ndarray) -> float:
    """G-Norm = tr of the gradients' second-moment matrix = mean ‖h‖² (lower: the student already fits)."""
    gradients = np.asarray(gradients, dtype=np.float64)
    return float(np.mean(np.sum(gradients ** 2, axis=1)))


def g_vendi(gradients: np.ndarray) -> float:
    """Shannon entropy (natural log) of the eigenvalues of Σ̃, the unit-row gradient covariance.

    Jung et al. 2025 (Prismatic Synthesis) define the G-Vendi *score* as exp of this entropy (an effective
    number of gradient directions, in [1, d]); GRACE reports the entropy itself (5.93 for the untrained student
    at d = 512, below log 512 = 6.24), so that is what this returns: 0 for rank-1 data, log d for isotropic."""
    eigenvalues = np.clip(np.linalg.eigvalsh(normalised_covariance(np.asarray(gradients, np.float64))), 0, None)
    if eigenvalues.sum() <= 0:
        raise ValueError("every gradient is zero: G-Vendi is undefined")
    p = eigenvalues / eigenvalues.sum()
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def spearman(scores_lower_is_better: np.ndarray, accuracies: np.ndarray) -> float:
    """Spearman correlation of -score with student accuracy over teachers (scipy.stats.spearmanr).

    Returns nan, without scipy's warning, when either side is constant (the rank correlation is undefined)."""
    scores = np.asarray(scores_lower_is_better, dtype=np.float64)
    accuracies = np.asarray(accuracies, dtype=np.float64)
    if scores.shape != accuracies.shape or scores.ndim != 1 or len(scores) < 2:
        raise ValueError(f"need two equal-length 1-D arrays of at least 2 teachers, got {scores.shape} "
                         f"and {accuracies.shape}")
    if np.ptp(scores) == 0 or np.ptp(accuracies) == 0:
        return float("nan")
    return float(spearmanr(-scores, accuracies).statistic)


def selection_regret(scores: np.ndarray, accuracies: np.ndarray, lower_is_better: bool = True) -> float:
    """Best student accuracy in the pool minus that of the teacher the score selects (first one on ties); the
    scores are finite (the engine checks a predictions table before the task scores it)."""
    scores = np.asarray(scores, dtype=np.float64)
    accuracies = np.asarray(accuracies, dtype=np.float64)
    if scores.shape != accuracies.shape or scores.ndim != 1 or len(scores) == 0:
        raise ValueError(f"need two equal-length non-empty 1-D arrays, got {scores.shape} and {accuracies.shape}")
    chosen = int(np.argmin(scores) if lower_is_better else np.argmax(scores))
    return float(np.max(accuracies) - accuracies[chosen])
