"""Pose-error measures on joint positions (..., frames, joints, 3), in the arrays' units: MPJPE, PA-MPJPE and the
acceleration error, as the human-motion literature defines them (e.g. HMR, VIBE)."""
from __future__ import annotations

import numpy as np


def mpjpe(predicted: np.ndarray, target: np.ndarray) -> float:
    """Mean per-joint position error: the mean Euclidean distance between matching joints, with no alignment
    (a tokenizer reconstructs the very coordinates it was given)."""
    return float(np.linalg.norm(predicted - target, axis=-1).mean())


def procrustes_aligned(predicted: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each pose of `predicted` (..., joints, 3) moved by the similarity transform (scale, rotation, translation)
    that best fits it to `target` in least squares: Umeyama's closed form by SVD, reflections excluded."""
    mu_p, mu_t = predicted.mean(axis=-2, keepdims=True), target.mean(axis=-2, keepdims=True)
    p, t = predicted - mu_p, target - mu_t
    u, singular, vt = np.linalg.svd(np.swapaxes(p, -1, -2) @ t)
    sign = np.sign(np.linalg.det(u @ vt))
    singular[..., -1] *= sign
    u[..., :, -1] *= sign[..., None]
    rotation = u @ vt
    variance = (p ** 2).sum(axis=(-2, -1))
    scale = singular.sum(axis=-1) / np.where(variance > 0, variance, 1.0)
    return scale[..., None, None] * (p @ rotation) + mu_t


def pa_mpjpe(predicted: np.ndarray, target: np.ndarray) -> float:
    """MPJPE after Procrustes alignment of every frame: the error of the pose's shape alone."""
    return mpjpe(procrustes_aligned(predicted, target), target)


def acceleration_error(predicted: np.ndarray, target: np.ndarray) -> float:
    """Mean distance between the joints' second differences over frames (units per frame squared): jitter
    that a per-frame error hides."""
    def acceleration(x: np.ndarray) -> np.ndarray:
        return x[..., 2:, :, :] - 2 * x[..., 1:-1, :, :] + x[..., :-2, :, :]

    return float(np.linalg.norm(acceleration(predicted) - acceleration(target), axis=-1).mean())


def code_histogram(tokens: np.ndarray, codebook_size: int) -> np.ndarray:
    return np.bincount(tokens.ravel(), minlength=codebook_size).astype(np.float64)


def codebook_usage(tokens: np.ndarray, codebook_size: int) -> float:
    """Per cent of the codebook's entries that some token uses."""
    return 100.0 * float((code_histogram(tokens, codebook_size) > 0).sum()) / codebook_size


def perplexity(tokens: np.ndarray, codebook_size: int) -> float:
    """exp of the entropy of the code frequencies: the number of equally used codes with the same spread."""
    counts = code_histogram(tokens, codebook_size)
    p = counts[counts > 0] / counts.sum()
    return float(np.exp(-(p * np.log(p)).sum()))
