"""The shape_control family's hot path (the issue's performance target): Chamfer-L2 and F-score for 1,000 pairs
of 2,048-point clouds, under 30 s; the clouds are surface samples of generated furniture and their controls."""
from __future__ import annotations

PAIRS = 1_000


def test_chamfer_and_fscore_1000_pairs_of_2048_points(benchmark):
    import numpy as np

    from methods.shape_control.furniture import TEST_STREAM, generate
    from methods.shape_control.metrics import chamfer_l2, fscore
    from methods.shape_control.superquadric import occupancy
    from methods.shape_control.surface import POINTS, surface_points

    shapes = [generate(TEST_STREAM, 0, index) for index in range(20)]
    clouds = [(surface_points(occupancy(s.parts, 16), s.id), surface_points(occupancy(s.control, 16), s.id))
              for s in shapes]
    pairs = [clouds[i % len(clouds)] for i in range(PAIRS)]
    assert pairs[0][0].shape == (POINTS, 3)

    def score_all() -> float:
        return float(np.mean([chamfer_l2(a, b) + fscore(a, b) for a, b in pairs]))

    benchmark.pedantic(score_all, rounds=3, iterations=1)
    benchmark.extra_info["pairs"] = PAIRS
    benchmark.extra_info["points"] = POINTS
