"""USplat4D's Eq. 3/5/6 and the key-node graph on cases whose answer is known."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from methods.dynamic_splatting.cameras import Camera
from methods.dynamic_splatting.graph import build_graph, key_nodes
from methods.dynamic_splatting.splatter import Splats, splat
from methods.dynamic_splatting.uncertainty import Uncertainty, anisotropic_inverse, gated_uncertainty


def _two_gaussians() -> Splats:
    """One Gaussian in view at (8, 8) and one outside the 16 x 16 image."""
    return Splats(torch.tensor([[[8.0, 8.0], [40.0, 40.0]]]), torch.tensor([[0.0, 0.0]]), torch.tensor([2.0, 2.0]),
                  torch.tensor([[1.0, 0.5, 0.2], [0.2, 0.5, 1.0]]), torch.tensor([0.8, 0.8]))


def test_eq3_is_the_inverse_sum_of_squared_blending_weights():
    render = splat(_two_gaussians(), 16, 16)
    u = gated_uncertainty(render, render.image, 2, eta=0.1, phi=1e3)
    expected = 1.0 / float((render.weights[..., 0] ** 2 * render.inside).sum())
    assert u[0, 0].item() == pytest.approx(expected, rel=1e-5)
    assert u[0, 1].item() == 1e3  # unseen: phi


def test_eq5_gates_a_gaussian_whose_pixels_are_wrong_to_phi():
    render = splat(_two_gaussians(), 16, 16)
    wrong = render.image.clone()
    wrong[0, 8, 8] += 0.5  # one touched pixel off by 0.5 in every channel
    assert gated_uncertainty(render, wrong, 2, eta=0.4, phi=1e3)[0, 0].item() == 1e3
    assert gated_uncertainty(render, wrong, 2, eta=0.6, phi=1e3)[0, 0].item() < 1e3


def test_eq6_is_r_z_times_less_certain_along_the_cameras_depth_axis():
    camera = Camera(30.0, 10.0, 16, 2.0)
    inverse = anisotropic_inverse(torch.tensor([[2.0]], dtype=torch.float64), [camera], depth_ratio=5.0)[0, 0]
    axes = camera.rotation()
    assert (axes[:, 0] @ inverse @ axes[:, 0]).item() == pytest.approx(1 / 2.0)
    assert (axes[:, 2] @ inverse @ axes[:, 2]).item() == pytest.approx(1 / 10.0)
    assert torch.allclose(axes.T @ axes, torch.eye(3, dtype=torch.float64))


def test_key_nodes_are_the_least_uncertain_share():
    assert key_nodes(torch.tensor([5.0, 1.0, 3.0, 0.5]), 0.5).tolist() == [1, 3]


def test_graph_attaches_every_non_key_to_its_nearest_keys():
    rng = np.random.default_rng(0)
    positions = torch.as_tensor(rng.random((3, 10, 3)))
    u = torch.as_tensor(np.tile(np.arange(10.0) + 1, (3, 1)))
    found = Uncertainty(u, torch.eye(3, dtype=torch.float64).expand(3, 10, 3, 3) / u[..., None, None])
    graph = build_graph(positions, found, share=0.4, neighbours=2, skinning=1)
    assert graph.keys.tolist() == [0, 1, 2, 3] and graph.others.tolist() == list(range(4, 10))
    for j, other in enumerate(graph.others):
        mean_gap = (positions[:, other, None] - positions[:, graph.keys]).norm(dim=-1).mean(0)
        assert graph.attached[j, 0].item() == int(mean_gap.argmin())
    assert torch.allclose(graph.blend.sum(1), torch.ones(6, dtype=torch.float64))
    assert graph.edges.shape == (8, 2) and (graph.edges[:, 0] != graph.edges[:, 1]).all()
