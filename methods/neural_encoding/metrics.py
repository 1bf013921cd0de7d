"""The family's metrics: per-unit single-trial Pearson r averaged over units (OmniMouse's metric, equal to
`scipy.stats.pearsonr` per unit, tested), forecast r by horizon, correlation to the trial average and the
fraction of explainable variance explained (FEVE, Sensorium's definitions) on repeated test movies.

A unit whose prediction or response is constant has r = 0 here (scipy returns NaN): a predictor that says
nothing scores nothing, and one silent neuron does not turn the mean into NaN.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from harness import Metric
from methods.neural_encoding.scored import ScoredColumns


def unit_correlations(response: np.ndarray, prediction: np.ndarray) -> np.ndarray:
    """(units,) Pearson r of each column of two (samples, units) arrays; 0 where either is constant."""
    x = response - response.mean(axis=0)
    y = prediction - prediction.mean(axis=0)
    norm = np.sqrt((x**2).sum(axis=0) * (y**2).sum(axis=0))
    return np.divide((x * y).sum(axis=0), norm, out=np.zeros(norm.shape), where=norm > 1e-12)


def single_trial_r(run: ScoredColumns, column: str, horizon: tuple[int, int] | None = None) -> float:
    """Mean over every evaluated session's target units of r over (trials x target time bins); `horizon`
    (first, last), 1-based bins after the forecast context, restricts the time bins."""
    pairs = run.pairs.get(column)
    if not pairs:
        return float("nan")
    per_unit = []
    for target, prediction in pairs:
        keep = np.ones(target.times.size, dtype=bool)
        if horizon is not None:
            step = target.times - target.times[0] + 1
            keep = (step >= horizon[0]) & (step <= horizon[1])
        values, predicted = target.values[:, keep], prediction[:, keep]
        per_unit.append(unit_correlations(values.reshape(-1, values.shape[2]), predicted.reshape(-1, values.shape[2])))
    return float(np.concatenate(per_unit).mean())


def _repeat_means(values: np.ndarray, movie: np.ndarray) -> np.ndarray:
    """(movies, times, units) the mean over each movie's repeats."""
    return np.stack([values[movie == m].mean(axis=0) for m in np.unique(movie)])


def correlation_to_average(run: ScoredColumns, column: str = "pop_stim") -> float:
    """Mean over units of r between the repeat-averaged prediction and the repeat-averaged response."""
    repeated = [(t.values, t.movie, p) for t, p in run.pairs.get(column, ()) if t.movie is not None]
    if not repeated:
        return float("nan")
    per_unit = []
    for response, movie, prediction in repeated:
        mean_response = _repeat_means(response, movie)
        mean_prediction = _repeat_means(prediction, movie)
        units = response.shape[2]
        per_unit.append(unit_correlations(mean_response.reshape(-1, units), mean_prediction.reshape(-1, units)))
    return float(np.concatenate(per_unit).mean())


def explainable_variance(values: np.ndarray, movie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(total variance, noise variance) per unit: the variance over every test response, and the mean over
    movies and time bins of the variance across repeats (ddof 1): the noise ceiling's two terms."""
    units = values.shape[2]
    total = values.reshape(-1, units).var(axis=0, ddof=1)
    noise = np.stack([values[movie == m].var(axis=0, ddof=1) for m in np.unique(movie)]).reshape(-1, units).mean(axis=0)
    return total, noise


def feve(run: ScoredColumns, column: str = "pop_stim") -> float:
    """Fraction of explainable variance explained, 1 - (MSE - noise) / (total - noise), averaged over the units
    whose explainable variance (total - noise) is positive (Sensorium 2022's definition)."""
    repeated = [(t.values, t.movie, p) for t, p in run.pairs.get(column, ()) if t.movie is not None]
    if not repeated:
        return float("nan")
    per_unit = []
    for response, movie, prediction in repeated:
        total, noise = explainable_variance(response, movie)
        units = response.shape[2]
        mse = ((response - prediction) ** 2).reshape(-1, units).mean(axis=0)
        explainable = total - noise
        keep = explainable > 1e-9
        per_unit.append(1.0 - (mse[keep] - noise[keep]) / explainable[keep])
    values = np.concatenate(per_unit)
    return float(values.mean()) if values.size else float("nan")


HORIZONS = {"forecast_r_1to4": (1, 4), "forecast_r_5to8": (5, 8), "forecast_r_9to16": (9, 16)}


def _column_metric(column: str) -> Metric:
    kind = "behaviour-decoding" if column in ("gaze", "pupil", "running") else "single-trial"
    return Metric(f"{column}_r", partial(single_trial_r, column=column), higher_is_better=True,
                  description=f"{column}: {kind} Pearson r per unit, averaged over units (OmniMouse's metric)")


FORECAST_R, FORECAST_STIM_R, POPULATION_R, POP_STIM_R, GAZE_R, PUPIL_R, RUNNING_R = (
    _column_metric(name) for name in ("forecast", "forecast_stim", "population", "pop_stim", "gaze", "pupil",
                                      "running"))
FORECAST_R_1TO4, FORECAST_R_5TO8, FORECAST_R_9TO16 = (
    Metric(name, partial(single_trial_r, column="forecast", horizon=window), higher_is_better=True,
           description=f"forecast r at horizons {window[0]}-{window[1]} bins after the context")
    for name, window in HORIZONS.items())
CORR_TO_AVERAGE = Metric("corr_to_average", correlation_to_average, higher_is_better=True,
                         description="pop_stim: r between repeat-averaged prediction and response")
FEVE = Metric("feve", feve, higher_is_better=True,
              description="pop_stim: fraction of explainable variance explained (repeats give the noise)")
