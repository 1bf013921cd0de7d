"""Generated movies for the simulated cortex: drifting gratings, sparse noise and moving blobs, the three
stimulus classes of a mouse visual-cortex session, on a small square frame (values in about [-1, 1])."""
from __future__ import annotations

import numpy as np

KINDS = ("grating", "noise", "blobs")
VIDEO_LAGS = 3  # frames t, t-1, t-2: the simulated neurons' temporal kernel, and every model's stimulus window


def drifting_grating(rng: np.random.Generator, time_bins: int, size: int) -> np.ndarray:
    """A full-field sinusoid of random orientation, spatial frequency and drift speed."""
    theta, freq = rng.uniform(0, np.pi), rng.uniform(0.06, 0.2)
    speed, phase = rng.uniform(0.05, 0.25), rng.uniform(0, 2 * np.pi)
    y, x = np.mgrid[0:size, 0:size]
    along = x * np.cos(theta) + y * np.sin(theta)
    t = np.arange(time_bins)[:, None, None]
    return np.sin(2 * np.pi * (freq * along[None] - speed * t) + phase)


def sparse_noise(rng: np.random.Generator, time_bins: int, size: int, density: float = 0.1) -> np.ndarray:
    """Each frame: a random `density` of the pixels at +1 or -1, the rest at 0 (the reverse-correlation stimulus)."""
    on = rng.random((time_bins, size, size)) < density
    return np.where(on, rng.choice([-1.0, 1.0], size=on.shape), 0.0)


def moving_blobs(rng: np.random.Generator, time_bins: int, size: int, count: int = 2) -> np.ndarray:
    """`count` Gaussian blobs of either sign drifting at constant velocity, wrapping at the edges."""
    y, x = np.mgrid[0:size, 0:size]
    frames = np.zeros((time_bins, size, size))
    for _ in range(count):
        start, velocity = rng.uniform(0, size, 2), rng.uniform(-0.8, 0.8, 2)
        sign, width = rng.choice([-1.0, 1.0]), rng.uniform(1.5, 3.0)
        for t in range(time_bins):
            cy, cx = (start + velocity * t) % size
            dy = np.minimum(abs(y - cy), size - abs(y - cy))
            dx = np.minimum(abs(x - cx), size - abs(x - cx))
            frames[t] += sign * np.exp(-(dx**2 + dy**2) / (2 * width**2))
    return frames


def movie(kind: str, rng: np.random.Generator, time_bins: int, size: int) -> np.ndarray:
    """One trial's movie (time_bins, size, size) of the named kind."""
    generators = {"grating": drifting_grating, "noise": sparse_noise, "blobs": moving_blobs}
    return generators[kind](rng, time_bins, size)


def movie_bank(rng: np.random.Generator, count: int, time_bins: int, size: int) -> np.ndarray:
    """`count` movies (count, time_bins, size, size), the kinds in turn (float32)."""
    return np.stack([movie(KINDS[i % len(KINDS)], rng, time_bins, size) for i in range(count)]).astype(np.float32)


def lagged_frames(video: np.ndarray, lags: int = VIDEO_LAGS) -> np.ndarray:
    """(trials, T, lags, H, W): frames t, t-1, ... of each bin, the first frame repeated before the trial's start."""
    time_bins = video.shape[1]
    padded = np.concatenate([np.repeat(video[:, :1], lags - 1, axis=1), video], axis=1)
    return np.stack([padded[:, lags - 1 - lag: lags - 1 - lag + time_bins] for lag in range(lags)], axis=2)
