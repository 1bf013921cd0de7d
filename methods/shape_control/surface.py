"""Surface points of a shape, the clouds Chamfer distance and F-score compare.

Every shape the harness scores is an occupancy grid over [-1, 1]^3: its surface is the 0.5 level set found by
marching cubes (scikit-image) on the zero-padded grid, sampled uniformly by area with trimesh. A generated shape
and its control go through the same voxel grid, so neither gains from a finer surface than the other. Users'
meshes are sampled directly (`byo`).
"""
from __future__ import annotations

import zlib

import numpy as np

POINTS = 2048  # per shape, as the performance target counts them


def mesh_of(grid: np.ndarray):  # -> trimesh.Trimesh
    """The 0.5 iso-surface of an occupancy grid over [-1, 1]^3 as a trimesh mesh."""
    import trimesh
    from skimage.measure import marching_cubes

    resolution = grid.shape[0]
    padded = np.pad(grid.astype(np.float32), 1)
    vertices, faces, _, _ = marching_cubes(padded, 0.5)
    vertices = (vertices - 1.0 + 0.5) * (2.0 / resolution) - 1.0  # padded index -> voxel centre coordinates
    return trimesh.Trimesh(vertices, faces, process=False)


def sample_mesh(mesh, count: int, key: str) -> np.ndarray:  # mesh: trimesh.Trimesh
    """`count` points drawn uniformly by area, seeded by `key` (a shape's id), so re-scoring draws the same."""
    import trimesh

    points, _ = trimesh.sample.sample_surface(mesh, count, seed=zlib.crc32(key.encode()))
    return np.asarray(points, dtype=np.float64)


def surface_points(grid: np.ndarray, key: str, count: int = POINTS) -> np.ndarray:
    """(count, 3) points on the surface of `grid`; an empty grid has no surface and gives the cube's centre
    (count times), which scores as far from any real shape."""
    if not grid.any():
        return np.zeros((count, 3))
    return sample_mesh(mesh_of(grid), count, key)


def winding_numbers(vertices: np.ndarray, faces: np.ndarray, points: np.ndarray, chunk: int = 512) -> np.ndarray:
    """The generalised winding number of a closed triangle mesh at each point (1 inside, 0 outside): the sum of
    its triangles' signed solid angles (Van Oosterom and Strackee, 1983) over 4 pi. Written here because
    trimesh's `contains` needs rtree, which is not a dependency."""
    triangles = np.asarray(vertices, dtype=np.float64)[np.asarray(faces)]
    numbers = np.empty(len(points))
    for start in range(0, len(points), chunk):
        a, b, c = (triangles[None, :, k, :] - points[start:start + chunk, None, :] for k in range(3))
        la, lb, lc = (np.linalg.norm(v, axis=-1) for v in (a, b, c))
        numerator = np.einsum("pfi,pfi->pf", a, np.cross(b, c))
        denominator = (la * lb * lc + np.einsum("pfi,pfi->pf", a, b) * lc + np.einsum("pfi,pfi->pf", b, c) * la
                       + np.einsum("pfi,pfi->pf", c, a) * lb)
        numbers[start:start + chunk] = np.arctan2(numerator, denominator).sum(axis=1) / (2.0 * np.pi)
    return numbers
