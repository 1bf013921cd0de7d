"""The tiled splatter against a brute-force per-pixel compositor, and its gradients by finite differences."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from methods.dynamic_splatting.splatter import CUTOFF_SIGMAS, MAX_ALPHA, Splats, splat


def brute_force(means, depths, sigmas, colours, opacities, height, width, background):
    """Every pixel, every Gaussian nearest first: C = sum c_i a_i T_i + T_end * background."""
    image = np.zeros((height, width, colours.shape[1]))
    for y in range(height):
        for x in range(width):
            transmittance, colour = 1.0, np.zeros(colours.shape[1])
            for i in np.argsort(depths, kind="stable"):
                d2 = (x + 0.5 - means[i, 0]) ** 2 + (y + 0.5 - means[i, 1]) ** 2
                if d2 > (CUTOFF_SIGMAS * sigmas[i]) ** 2:
                    continue
                alpha = min(MAX_ALPHA, opacities[i] * math.exp(-0.5 * d2 / sigmas[i] ** 2))
                colour += transmittance * alpha * colours[i]
                transmittance *= 1 - alpha
            image[y, x] = colour + transmittance * background
    return image


def _random_scene(seed: int, frames: int, count: int, size: int) -> Splats:
    g = torch.Generator().manual_seed(seed)
    return Splats(torch.rand(frames, count, 2, generator=g, dtype=torch.float64) * size,
                  torch.rand(frames, count, generator=g, dtype=torch.float64),
                  0.8 + 2.5 * torch.rand(count, generator=g, dtype=torch.float64),
                  torch.rand(count, 3, generator=g, dtype=torch.float64),
                  0.2 + 0.79 * torch.rand(count, generator=g, dtype=torch.float64))


@pytest.mark.parametrize("size, tile", [(16, 8), (20, 8), (16, 16)])
def test_tiled_render_equals_the_brute_force_compositor(size, tile):
    scene = _random_scene(0, frames=2, count=25, size=size)
    background = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    render = splat(scene, size, size, background, tile=tile)
    for f in range(2):
        expected = brute_force(scene.means[f].numpy(), scene.depths[f].numpy(), scene.sigmas.numpy(),
                               scene.colours.numpy(), scene.opacities.numpy(), size, size, background.numpy())
        np.testing.assert_allclose(render.image[f].numpy(), expected, atol=1e-10)


def test_coverage_is_one_minus_the_final_transmittance():
    scene = _random_scene(1, frames=1, count=30, size=16)
    white = splat(scene, 16, 16, torch.ones(3, dtype=torch.float64))
    black = splat(scene, 16, 16, torch.zeros(3, dtype=torch.float64))
    np.testing.assert_allclose((white.image - black.image)[..., 0].numpy(), 1 - black.alpha.numpy(), atol=1e-12)


def test_per_gaussian_sums_add_up_to_the_coverage():
    scene = _random_scene(2, frames=2, count=20, size=16)
    render = splat(scene, 16, 16)
    per_gaussian = render.per_gaussian_sum(render.weights, 20)
    np.testing.assert_allclose(per_gaussian.sum(dim=1).numpy(), render.alpha.sum(dim=(1, 2)).numpy(), rtol=1e-12)


def test_gradients_match_finite_differences():
    scene = _random_scene(3, frames=1, count=6, size=8)
    target = torch.rand(1, 8, 8, 3, generator=torch.Generator().manual_seed(4), dtype=torch.float64)

    def loss(means, sigmas, colours, opacities):
        image = splat(Splats(means, scene.depths, sigmas, colours, opacities), 8, 8).image
        return ((image - target) ** 2).sum()

    inputs = tuple(t.clone().requires_grad_(True) for t in (scene.means, scene.sigmas, scene.colours,
                                                           scene.opacities))
    assert torch.autograd.gradcheck(loss, inputs, eps=1e-6, atol=1e-5)


def test_the_nearer_gaussian_is_composited_first_whatever_the_order_given():
    means = torch.full((1, 2, 2), 8.5, dtype=torch.float64)  # on a pixel centre: alpha = opacity there
    colours = torch.tensor([[1.0, 0, 0], [0, 1.0, 0]], dtype=torch.float64)
    opacity = torch.tensor([0.6, 0.5], dtype=torch.float64)
    sigmas = torch.tensor([3.0, 3.0], dtype=torch.float64)
    for depths, red, green in (([0.0, 1.0], 0.6, 0.4 * 0.5), ([1.0, 0.0], 0.5 * 0.6, 0.5)):
        scene = Splats(means, torch.tensor([depths], dtype=torch.float64), sigmas, colours, opacity)
        centre = splat(scene, 16, 16).image[0, 8, 8]
        assert centre[0].item() == pytest.approx(red) and centre[1].item() == pytest.approx(green)
