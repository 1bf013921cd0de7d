"""The simulated cortex: receptive fields recover by reverse correlation, the noise ceiling's terms are right,
sessions hold disjoint populations, and the issue's 20 sessions x 200 neurons simulate whole (their time is
benchmarks/test_bench_neural_encoding.py's)."""
from __future__ import annotations

import numpy as np
import pytest

from harness import DataError
from methods.neural_encoding.cortex import CortexSpec, cortex_spec, gabor_fields, simulate, simulate_session
from methods.neural_encoding.metrics import explainable_variance
from methods.neural_encoding.movies import movie_bank, sparse_noise


def test_receptive_fields_recover_by_reverse_correlation():
    """The spike-triggered average over sparse noise (lag 0 of the temporal kernel, behaviour off) correlates
    with each neuron's Gabor field."""
    spec = CortexSpec(sessions=1, neurons=20, train_trials=1, test_movies=2, repeats=2, time_bins=8, frame=12,
                      behaviour_gain=0.0)
    rng = np.random.default_rng(0)
    session = simulate_session(spec, rng, movie_bank(rng, 2, 8, 12))
    noise = np.stack([sparse_noise(rng, 400, 12) for _ in range(10)]).astype(np.float32)
    from methods.neural_encoding.cortex import _drive

    drive = _drive(noise, session.receptive_fields)
    spikes = rng.poisson(np.exp(-1.0 + drive / drive.std()))
    frames = noise.reshape(-1, 144)
    sta = (spikes.reshape(-1, 20) - spikes.mean()).T @ frames
    fields = session.receptive_fields.reshape(20, -1)
    r = [np.corrcoef(sta[n], fields[n])[0, 1] for n in range(20)]
    assert np.median(r) > 0.6 and min(r) > 0.3


def test_noise_variance_from_repeats_matches_the_poisson_rate_without_behaviour():
    """Behaviour off, the across-repeat variance of Poisson counts is their mean rate (the noise ceiling's
    noise term) and total minus noise is the variance of the rates (the explainable term)."""
    spec = CortexSpec(sessions=1, neurons=30, train_trials=1, test_movies=20, repeats=40, time_bins=8,
                      behaviour_gain=0.0)
    session = simulate(spec, 0).sessions[0]
    test = session.test
    total, noise = explainable_variance(session.spikes[test].astype(np.float64), session.test_movie[test])
    rates = session.rates[test]
    np.testing.assert_allclose(noise, rates.reshape(-1, 30).mean(axis=0), rtol=0.1)
    np.testing.assert_allclose(total - noise, rates.reshape(-1, 30).var(axis=0), rtol=0.25, atol=0.02)


def test_sessions_hold_disjoint_populations_and_share_the_test_movies():
    cortex = simulate(CortexSpec(sessions=3, neurons=10, train_trials=3, test_movies=2, repeats=2, time_bins=8), 0)
    first, second = cortex.sessions[:2]
    assert not np.allclose(first.receptive_fields, second.receptive_fields)
    np.testing.assert_array_equal(first.video[first.test], second.video[second.test])
    assert not np.array_equal(first.video[first.train], second.video[second.train])


def test_gabor_fields_have_unit_norm():
    fields = gabor_fields(np.random.default_rng(0), 5, 16)
    np.testing.assert_allclose(np.linalg.norm(fields.reshape(5, -1), axis=1), 1.0)


def test_bad_sizes_are_named():
    with pytest.raises(DataError, match="repeats"):
        cortex_spec(repeats=1)
    with pytest.raises(DataError, match="neurons"):
        cortex_spec(neurons=0)


@pytest.mark.slow
def test_twenty_sessions_of_two_hundred_neurons_simulate_whole():
    cortex = simulate(cortex_spec(sessions=20, neurons=200), 0)
    assert len(cortex.sessions) == 20
    for session in cortex.sessions:
        assert session.spikes.shape[-1] == session.rates.shape[-1] == 200
        assert np.isfinite(session.rates).all() and (session.rates >= 0).all()
        assert (session.spikes >= 0).all() and np.array_equal(session.spikes, np.round(session.spikes))
