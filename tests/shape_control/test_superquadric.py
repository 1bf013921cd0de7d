"""The superquadric inside-outside function, occupancy and volume against their definitions and the analytic
formula, and the generated furniture's structure."""
from __future__ import annotations

import math

import numpy as np
import pytest

from methods.shape_control.furniture import KINDS, TEST_STREAM, generate
from methods.shape_control.superquadric import Superquadric, inside_outside, occupancy, volume, voxel_centres


@pytest.mark.parametrize("exponents", [(1.0, 1.0), (0.3, 0.3), (0.2, 1.0), (1.5, 0.5), (2.0, 2.0)])
def test_volume_matches_a_fine_voxel_count(exponents):
    """The beta-function formula against the share of a 160^3 grid's voxel centres inside (within 1 %)."""
    primitive = Superquadric((0.9, 0.6, 0.4), exponents, (0.05, -0.1, 0.0), yaw=0.3)
    counted = occupancy([primitive], 160).sum() * (2.0 / 160) ** 3
    assert volume(primitive) == pytest.approx(counted, rel=0.01)


def test_volume_of_an_ellipsoid_and_the_box_limit():
    assert volume(Superquadric((1.0, 2.0, 3.0), (1.0, 1.0))) == pytest.approx(4 / 3 * math.pi * 6.0)
    assert volume(Superquadric((1.0, 2.0, 3.0), (1e-3, 1e-3))) == pytest.approx(8 * 6.0, rel=0.01)


def test_inside_outside_is_one_on_the_parametric_surface():
    """Points of the signed-power parametrisation (x = a1 cos^e1(eta) cos^e2(omega), ...) satisfy F = 1."""
    a, (e1, e2) = np.array([0.7, 0.4, 0.5]), (0.4, 1.6)
    eta, omega = np.meshgrid(np.linspace(-1.5, 1.5, 9), np.linspace(-3.1, 3.1, 13))

    def power(value: np.ndarray, e: float) -> np.ndarray:
        return np.sign(value) * np.abs(value) ** e

    points = np.stack([a[0] * power(np.cos(eta), e1) * power(np.cos(omega), e2),
                       a[1] * power(np.cos(eta), e1) * power(np.sin(omega), e2),
                       a[2] * power(np.sin(eta), e1)], axis=-1).reshape(-1, 3)
    primitive = Superquadric((0.7, 0.4, 0.5), (e1, e2), (0.1, 0.2, -0.3), yaw=0.0)
    np.testing.assert_allclose(inside_outside(primitive, points + [0.1, 0.2, -0.3]), 1.0, rtol=1e-9)


def test_yaw_turns_the_primitive_about_z():
    long_in_x = Superquadric((0.8, 0.2, 0.2), (0.5, 0.5))
    long_in_y = Superquadric((0.8, 0.2, 0.2), (0.5, 0.5), yaw=math.pi / 2)
    np.testing.assert_array_equal(occupancy([long_in_y], 16), occupancy([long_in_x], 16).transpose(1, 0, 2))


def test_voxel_centres_are_in_c_order():
    centres = voxel_centres(4).reshape(4, 4, 4, 3)
    assert centres[0, 0, 0].tolist() == [-0.75, -0.75, -0.75] and centres[3, 0, 1].tolist() == [0.75, -0.75, -0.25]


def test_furniture_is_reproducible_and_each_control_has_one_leg_block():
    first, again = generate(TEST_STREAM, 3, 7), generate(TEST_STREAM, 3, 7)
    assert first == again
    kinds = {generate(TEST_STREAM, 0, i).kind for i in range(30)}
    assert kinds == set(KINDS)
    for index in range(10):
        shape = generate(TEST_STREAM, 0, index)
        legs = shape.parts[-4:]
        block = shape.control[-1]
        assert len(shape.control) == len(shape.parts) - 3
        low = min(leg.center[2] - leg.scale[2] for leg in legs)
        assert block.center[2] - block.scale[2] == pytest.approx(low)
        assert occupancy(shape.control, 16).sum() > occupancy(shape.parts, 16).sum()
