"""The scaling fits: a power law is recovered with its exponent inside the interval, and saturation is told
from a real gain."""
from __future__ import annotations

import numpy as np
import pytest

from methods.neural_encoding.scaling import power_law_fit, saturation_p


def test_power_law_fit_recovers_a_known_exponent():
    rng = np.random.default_rng(0)
    x = np.repeat([1, 2, 4, 8, 16], 6).astype(float)
    y = 0.2 * x**0.3 * np.exp(rng.normal(0, 0.02, x.size))
    fit = power_law_fit(x, y)
    assert fit.ci95[0] < 0.3 < fit.ci95[1] and fit.exponent == pytest.approx(0.3, abs=0.03)
    assert fit.prefactor == pytest.approx(0.2, rel=0.1)


def test_power_law_fit_refuses_non_positive_values():
    with pytest.raises(ValueError, match="positive"):
        power_law_fit(np.array([1.0, 2.0, 4.0]), np.array([0.1, -0.1, 0.2]))


def test_saturation_p_is_small_for_a_real_gain_and_one_without_any():
    small = np.linspace(0.3, 0.35, 8)
    assert saturation_p(small, small + 0.05) < 0.01
    assert saturation_p(small, small) == 1.0
