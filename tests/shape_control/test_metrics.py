"""The shape metrics against brute force, scikit-learn and closed forms."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import jaccard_score

from methods.shape_control.metrics import (chamfer_l2, frechet_distance, fscore, nearest_jaccard_distance,
                                           voxel_iou)
from methods.shape_control.scoring import decode_grid, decode_points, encode_grid, encode_points
from methods.shape_control.superquadric import Superquadric, occupancy
from methods.shape_control.surface import surface_points


def _squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)


@pytest.fixture
def clouds():
    rng = np.random.default_rng(0)
    return rng.normal(size=(300, 3)), rng.normal(size=(200, 3)) + 0.3


def test_chamfer_equals_brute_force(clouds):
    a, b = clouds
    d = _squared_distances(a, b)
    assert chamfer_l2(a, b) == pytest.approx(d.min(axis=1).mean() + d.min(axis=0).mean(), rel=1e-12)


def test_chamfer_is_symmetric_and_zero_on_identical_clouds(clouds):
    a, b = clouds
    assert chamfer_l2(a, b) == pytest.approx(chamfer_l2(b, a), rel=1e-12)
    assert chamfer_l2(a, a) == 0.0
    assert chamfer_l2(a, a[::-1]) == 0.0


def test_fscore_equals_brute_force(clouds):
    a, b = clouds
    d = np.sqrt(_squared_distances(a, b))
    precision, recall = (d.min(axis=1) <= 0.5).mean(), (d.min(axis=0) <= 0.5).mean()
    assert fscore(a, b, 0.5) == pytest.approx(2 * precision * recall / (precision + recall), rel=1e-12)
    assert fscore(a, a, 1e-9) == 1.0 and fscore(a, a + 10.0, 0.5) == 0.0


def test_voxel_iou_on_known_shapes_and_against_scikit_learn():
    cube = np.zeros((8, 8, 8), dtype=bool)
    cube[0:4, 0:4, 0:4] = True
    shifted = np.roll(cube, 2, axis=0)  # overlaps in half: 32 of 64 + 64 - 32 voxels
    assert voxel_iou(cube, shifted) == pytest.approx(32 / 96)
    assert voxel_iou(cube, cube) == 1.0 and voxel_iou(cube, ~cube) == 0.0
    rng = np.random.default_rng(1)
    a, b = rng.random((16, 16, 16)) < 0.3, rng.random((16, 16, 16)) < 0.4
    assert voxel_iou(a, b) == pytest.approx(jaccard_score(a.ravel(), b.ravel()))


def test_nearest_jaccard_distance_is_zero_for_a_training_shape_and_brute_force_otherwise():
    rng = np.random.default_rng(2)
    training = rng.random((5, 6, 6, 6)) < 0.5
    queries = np.concatenate([training[3:4], rng.random((2, 6, 6, 6)) < 0.5])
    found = nearest_jaccard_distance(queries, training)
    expected = [1 - max(voxel_iou(q, t) for t in training) for q in queries]
    np.testing.assert_allclose(found, expected, atol=1e-6)
    assert found[0] == 0.0


def test_frechet_distance_matches_the_eigenvalue_form_and_diagonal_gaussians():
    """tr((S_a S_b)^(1/2)) is the sum of the square roots of S_a S_b's eigenvalues; with independent features
    the whole distance is |mu_a - mu_b|^2 + sum (s_a + s_b - 2 sqrt(s_a s_b))."""
    rng = np.random.default_rng(3)
    a = rng.normal(0.0, [1.0, 2.0, 0.5], size=(4000, 3))
    b = rng.normal(1.0, [2.0, 1.0, 0.5], size=(4000, 3))
    mean_term = float(((a.mean(0) - b.mean(0)) ** 2).sum())
    cov_a, cov_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    root_trace = np.sqrt(np.linalg.eigvals(cov_a @ cov_b).real.clip(0)).sum()
    assert frechet_distance(a, b) == pytest.approx(mean_term + np.trace(cov_a) + np.trace(cov_b) - 2 * root_trace,
                                                   rel=1e-6)
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-6)
    assert frechet_distance(a, b) == pytest.approx(3.0 + (1 - 2) ** 2 + (2 - 1) ** 2, rel=0.05)


def test_grids_and_points_survive_the_predictions_table_encoding():
    grid = occupancy([Superquadric((0.5, 0.3, 0.4), (0.5, 1.0))], 16)
    assert (decode_grid(encode_grid(grid), 16) == grid).all()
    points = np.random.default_rng(4).normal(size=(10, 3)).astype(np.float32)
    np.testing.assert_array_equal(decode_points(encode_points(points)), points)


def test_surface_points_lie_on_the_voxel_surface_and_repeat_for_one_key():
    grid = occupancy([Superquadric((0.5, 0.5, 0.5), (0.1, 0.1))], 16)  # a box over voxels 4..11
    points = surface_points(grid, "box")
    assert points.shape == (2048, 3)
    assert np.abs(points).max() == pytest.approx(0.5 + 0.0, abs=0.07)
    np.testing.assert_array_equal(points, surface_points(grid, "box"))
    assert not np.array_equal(points, surface_points(grid, "other"))


def test_winding_numbers_tell_inside_from_outside_like_a_superquadrics_occupancy():
    """A closed mesh of a near-box superquadric voxelised by winding numbers gives its own occupancy."""
    from methods.shape_control.superquadric import voxel_centres
    from methods.shape_control.surface import mesh_of, winding_numbers

    grid = occupancy([Superquadric((0.5, 0.3, 0.6), (0.1, 0.1), (0.1, 0.0, -0.1))], 16)
    mesh = mesh_of(grid)
    inside = np.abs(winding_numbers(mesh.vertices, mesh.faces, voxel_centres(16))) > 0.5
    np.testing.assert_array_equal(inside.reshape(grid.shape), grid)
