"""What the cameras see of a scene: the training arc and the extreme views, images rendered with the splatter,
per-Gaussian visibility and DyCheck-style co-visibility masks."""
from __future__ import annotations

import numpy as np
import torch

from methods.dynamic_splatting.cameras import Camera, splats
from methods.dynamic_splatting.scenes import BACKGROUND, EXTENT, STATIC, DynamicScene, SceneSpec
from methods.dynamic_splatting.splatter import Render, splat

VISIBLE_MASS = 0.3  # a Gaussian is seen in a frame when its blending weights there sum to this much (pixels)
COVISIBLE_SHARE = 0.5  # a test pixel is co-visible when this share of its coverage comes from seen Gaussians


def training_cameras(spec: SceneSpec) -> list[Camera]:
    """One camera per frame, sweeping the narrow arc [-arc/2, arc/2] of azimuths (a monocular capture)."""
    azimuths = np.linspace(-spec.arc_degrees / 2, spec.arc_degrees / 2, spec.frames)
    return [Camera(float(a), spec.elevation, spec.image_size, EXTENT) for a in azimuths]


def extreme_cameras(spec: SceneSpec, azimuth: float) -> list[Camera]:
    """The held-out view from `azimuth` at every frame."""
    return [Camera(azimuth, spec.elevation, spec.image_size, EXTENT)] * spec.frames


class Appearance:
    """A scene's fixed Gaussian appearance as float32 tensors (float64 would double every render's cost)."""

    def __init__(self, colours: np.ndarray, scales: np.ndarray, opacities: np.ndarray) -> None:
        self.colours = torch.as_tensor(colours, dtype=torch.float32)
        self.scales = torch.as_tensor(scales, dtype=torch.float32)
        self.opacities = torch.as_tensor(opacities, dtype=torch.float32)

    @classmethod
    def of(cls, scene: DynamicScene) -> "Appearance":
        return cls(scene.colours, scene.scales, scene.opacities)

    def render(self, positions: torch.Tensor, cameras: list[Camera], colours: torch.Tensor | None = None) -> Render:
        """The Gaussians at `positions` (T, N, 3), frame t through `cameras[t]`, on a black background;
        `colours` (N, C) replaces their colours (e.g. to render a per-Gaussian label)."""
        chosen = self.colours if colours is None else colours.to(torch.float32)
        return splat(splats(positions.to(torch.float32), cameras, self.scales, chosen, self.opacities),
                     cameras[0].size, cameras[0].size)


def seen_mass(render: Render, count: int) -> torch.Tensor:
    """(T, N): each Gaussian's summed blending weight per frame (how much of it the camera sees)."""
    return render.per_gaussian_sum(render.weights.detach(), count)


def covisibility_masks(appearance: Appearance, positions: torch.Tensor, cameras: list[Camera],
                       seen: torch.Tensor) -> torch.Tensor:
    """(T, H, W) bool: test pixels covered (alpha > 0.5) mostly by Gaussians seen in some training frame, the
    analogue of DyCheck's co-visibility masks (pixels of a test view that the training views observed)."""
    label = seen.to(torch.float32)[:, None]
    render = appearance.render(positions, cameras, colours=label)
    alpha = render.alpha
    share = render.image[..., 0] / alpha.clamp(min=1e-9)
    return (alpha > 0.5) & (share > COVISIBLE_SHARE)


def region_labels(appearance: Appearance, positions: torch.Tensor, cameras: list[Camera], objects: torch.Tensor,
                  ever_seen: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(T, H, W) int and bool: each pixel's region (the object segment, STATIC or BACKGROUND: the label with the
    largest share of a coverage above 0.5) and whether it is a never-seen footprint (coverage above 0.5, most of
    it from Gaussians no training view saw): the regions an extreme view's error is broken down over."""
    classes = int(objects.max()) + 2  # segments, then the static class
    label = torch.nn.functional.one_hot(torch.where(objects >= 0, objects, classes - 1), classes).to(torch.float32)
    render = appearance.render(positions, cameras, colours=torch.cat([label, (~ever_seen).float()[:, None]], 1))
    covered = render.alpha > 0.5
    region = render.image[..., :classes].argmax(dim=-1)
    region = torch.where(region == classes - 1, STATIC, region)
    unseen = covered & (render.image[..., classes] / render.alpha.clamp(min=1e-9) > 0.5)
    return torch.where(covered, region, BACKGROUND), unseen
