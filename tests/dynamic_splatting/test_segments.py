"""Segment-aware key nodes (issue 61): every key, edge and skinning weight stays inside one object segment, where
the spec's segment-blind graph lets a non-key near another segment follow its keys."""
from __future__ import annotations

import numpy as np
import torch

from methods.dynamic_splatting.graph import build_graph, cross_segment_weight, key_nodes
from methods.dynamic_splatting.uncertainty import Uncertainty


def _two_touching_segments():
    """Two segments of 10 Gaussians side by side along x; segment 1's Gaussians are the certain ones, and its
    left end touches segment 0's right end, so a segment-blind graph attaches segment 0's non-keys there."""
    rng = np.random.default_rng(0)
    x = np.concatenate([np.linspace(0.0, 0.9, 10), np.linspace(1.0, 1.9, 10)])
    frames = np.stack([np.column_stack([x + 0.1 * t, rng.normal(0, 0.01, 20), np.zeros(20)]) for t in range(3)])
    u = torch.as_tensor(np.tile(np.concatenate([np.full(10, 5.0), np.arange(10.0) + 1]), (3, 1)))
    found = Uncertainty(u, torch.eye(3, dtype=torch.float64).expand(3, 20, 3, 3) / u[..., None, None])
    return torch.as_tensor(frames), found, torch.as_tensor(np.repeat([0, 1], 10))


def test_segment_aware_skinning_puts_no_weight_across_segments():
    positions, found, segments = _two_touching_segments()
    blind = build_graph(positions, found, share=0.5, neighbours=3, skinning=4)
    aware = build_graph(positions, found, share=0.5, neighbours=3, skinning=4, segments=segments)
    assert cross_segment_weight(blind, segments).max() > 0.25   # the fixture's point: blind skinning crosses
    assert torch.equal(cross_segment_weight(aware, segments), torch.zeros(len(aware.others), dtype=torch.float64))
    key_segments = segments[aware.keys]
    assert (key_segments[aware.edges[:, 0]] == key_segments[aware.edges[:, 1]]).all()
    assert torch.allclose(aware.blend.sum(1), torch.ones(len(aware.others), dtype=torch.float64))


def test_segment_aware_keys_are_the_least_uncertain_share_of_each_segment():
    u = torch.tensor([5.0, 1.0, 3.0, 0.5, 9.0, 8.0, 7.0, 6.0])
    segments = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
    assert key_nodes(u, 0.5).tolist() == [0, 1, 2, 3]  # blind: all four from segment 0
    assert key_nodes(u, 0.5, segments).tolist() == [1, 3, 6, 7]
