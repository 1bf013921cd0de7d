"""The simulated cortex: linear-nonlinear-Poisson neurons with Gabor receptive fields watching generated
movies, their gain modulated by a behavioural state (running, pupil) and by gaze (eye-position gain fields),
recorded in sessions with disjoint populations; test movies are shown several times, so a noise ceiling exists.

rate_n(t) = exp(b_n + a_n * sum_l k_l <RF_n, frame(t - l)> + w_n . behaviour(t)),  spikes ~ Poisson(rate).
The ground-truth rates come with the spikes: they are the simulation's ceiling. It tests the evaluation
protocol (mask = task, data and parameter scaling), not the biology of mouse visual cortex.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness import DataError
from methods.neural_encoding.movies import movie_bank

BEHAVIOUR = ("running", "pupil", "gaze_x", "gaze_y")
TEMPORAL_KERNEL = np.array([0.5, 0.3, 0.2])  # weights of frames t, t-1, t-2


@dataclass(frozen=True)
class CortexSpec:
    """What the loader names; each seed simulates a new cortex from it (new neurons, movies and spikes)."""

    sessions: int = 4
    neurons: int = 48
    train_trials: int = 48
    test_movies: int = 4
    repeats: int = 3
    time_bins: int = 32
    frame: int = 16
    behaviour_gain: float = 1.0
    seed: int = 0


@dataclass(frozen=True)
class Session:
    """One recording: its own neurons; trials are train trials then test trials (movie `test_movie`, repeat)."""

    video: np.ndarray        # (trials, T, H, W) float32
    spikes: np.ndarray       # (trials, T, N) float32 counts
    rates: np.ndarray        # (trials, T, N) ground-truth Poisson rates
    behaviour: np.ndarray    # (trials, T, 4): running, pupil, gaze_x, gaze_y (standardised)
    test_movie: np.ndarray   # (trials,) int: the test movie shown, -1 on a train trial
    receptive_fields: np.ndarray  # (N, H, W)

    @property
    def train(self) -> np.ndarray:
        return np.flatnonzero(self.test_movie < 0)

    @property
    def test(self) -> np.ndarray:
        return np.flatnonzero(self.test_movie >= 0)


@dataclass(frozen=True)
class Cortex:
    spec: CortexSpec
    sessions: tuple[Session, ...]


def gabor_fields(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """(count, size, size) unit-norm Gabor receptive fields at random positions, orientations and scales."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64)
    fields = np.empty((count, size, size))
    for n in range(count):
        cy, cx = rng.uniform(0.25 * size, 0.75 * size, 2)
        sigma, theta = rng.uniform(1.5, 3.0), rng.uniform(0, np.pi)
        freq, phase = rng.uniform(0.08, 0.2), rng.uniform(0, 2 * np.pi)
        along = (x - cx) * np.cos(theta) + (y - cy) * np.sin(theta)
        envelope = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * sigma**2))
        field = envelope * np.cos(2 * np.pi * freq * along + phase)
        fields[n] = field / np.linalg.norm(field)
    return fields


def behaviour_traces(rng: np.random.Generator, trials: int, time_bins: int) -> np.ndarray:
    """(trials, T, 4) slow AR(1) states: running, pupil (following running, with its own drift) and gaze x, y."""
    def ar1(phi: float, shape: tuple[int, ...]) -> np.ndarray:
        out = np.empty((trials, time_bins, *shape))
        out[:, 0] = rng.standard_normal((trials, *shape))
        for t in range(1, time_bins):
            out[:, t] = phi * out[:, t - 1] + np.sqrt(1 - phi**2) * rng.standard_normal((trials, *shape))
        return out

    running = ar1(0.95, ())
    pupil = 0.6 * running + 0.8 * ar1(0.97, ())
    gaze = ar1(0.9, (2,))
    return np.concatenate([running[..., None], pupil[..., None], gaze], axis=2)


def _drive(video: np.ndarray, fields: np.ndarray) -> np.ndarray:
    """(trials, T, N) the temporally filtered projection of each frame on each receptive field."""
    trials, time_bins = video.shape[:2]
    projection = video.reshape(trials, time_bins, -1) @ fields.reshape(len(fields), -1).T
    drive = np.zeros_like(projection)
    for lag, weight in enumerate(TEMPORAL_KERNEL):
        drive[:, lag:] += weight * projection[:, : time_bins - lag]
    return drive


def simulate_session(spec: CortexSpec, rng: np.random.Generator, test_videos: np.ndarray) -> Session:
    n, size, time_bins = spec.neurons, spec.frame, spec.time_bins
    fields = gabor_fields(rng, n, size)
    train_videos = movie_bank(rng, spec.train_trials, time_bins, size)
    video = np.concatenate([train_videos, np.repeat(test_videos, spec.repeats, axis=0)])
    test_movie = np.concatenate([np.full(spec.train_trials, -1), np.repeat(np.arange(spec.test_movies), spec.repeats)])
    behaviour = behaviour_traces(rng, len(video), time_bins)
    drive = _drive(video, fields)
    drive /= drive.std(axis=(0, 1), keepdims=True) + 1e-9
    baseline, sensitivity = rng.uniform(-1.6, -0.6, n), rng.uniform(0.6, 1.2, n)
    weights = np.column_stack([rng.normal(0.35, 0.1, n), rng.normal(0.15, 0.1, n), rng.normal(0, 0.25, (n, 2))])
    log_rate = baseline + sensitivity * drive + spec.behaviour_gain * (behaviour @ weights.T)
    rates = np.exp(np.minimum(log_rate, 3.0))
    spikes = rng.poisson(rates).astype(np.float32)
    return Session(video, spikes, rates.astype(np.float32), behaviour.astype(np.float32), test_movie, fields)


def simulate(spec: CortexSpec, seed: int = 0) -> Cortex:
    """A cortex of `spec.sessions` sessions sharing the test movies; `seed` is mixed with `spec.seed`."""
    rng = np.random.default_rng([spec.seed, seed])
    test_videos = movie_bank(rng, spec.test_movies, spec.time_bins, spec.frame)
    return Cortex(spec, tuple(simulate_session(spec, rng, test_videos) for _ in range(spec.sessions)))


def cortex_spec(sessions: int = 4, neurons: int = 48, train_trials: int = 48, test_movies: int = 4, repeats: int = 3,
                time_bins: int = 32, frame: int = 16, behaviour_gain: float = 1.0, seed: int = 0) -> CortexSpec:
    """The `cortex` loader: checks the sizes (simulation happens per seed in the task)."""
    sizes = {"sessions": sessions, "neurons": neurons, "train_trials": train_trials, "test_movies": test_movies,
             "time_bins": time_bins, "frame": frame}
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise DataError(f"{name} must be a positive integer, got {value!r}", field=name)
    if repeats < 2:
        raise DataError(f"repeats must be >= 2 so a noise ceiling exists, got {repeats}", field="repeats")
    if time_bins < 8 or neurons < 2:
        raise DataError(f"need time_bins >= 8 and neurons >= 2, got {time_bins} and {neurons}", field="time_bins")
    return CortexSpec(sessions, neurons, train_trials, test_movies, repeats, time_bins, frame, behaviour_gain, seed)
