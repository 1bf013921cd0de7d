"""Orthographic cameras on a circle around the scene (y up): a camera at azimuth a and elevation e looks at the
origin from the direction (cos e sin a, sin e, cos e cos a). Orthographic, so an isotropic 3D Gaussian projects
to an isotropic 2D one of the same width times the scale (pixels per world unit)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from methods.dynamic_splatting.splatter import Splats


@dataclass(frozen=True)
class Camera:
    azimuth: float    # degrees
    elevation: float  # degrees
    size: int         # square image, pixels
    extent: float     # world units across the image

    def rotation(self) -> torch.Tensor:
        """R_wc (3, 3), float64: its columns are the camera's right, up and forward (depth) axes in the world."""
        a, e = math.radians(self.azimuth), math.radians(self.elevation)
        towards = torch.tensor([math.cos(e) * math.sin(a), math.sin(e), math.cos(e) * math.cos(a)],
                               dtype=torch.float64)
        right = torch.tensor([math.cos(a), 0.0, -math.sin(a)], dtype=torch.float64)
        up = torch.linalg.cross(towards, right)
        return torch.stack([right, up, -towards], dim=1)

    @property
    def scale(self) -> float:
        return self.size / self.extent


def project(points: torch.Tensor, cameras: list[Camera]) -> tuple[torch.Tensor, torch.Tensor]:
    """Pixel coordinates (F, N, 2) and depths (F, N) of `points` (F, N, 3), frame f seen by `cameras[f]`."""
    rotations = torch.stack([c.rotation() for c in cameras]).to(points.dtype)
    local = torch.einsum("fnw,fwc->fnc", points, rotations)
    scale = torch.tensor([c.scale for c in cameras], dtype=points.dtype)[:, None]
    half = torch.tensor([c.size / 2 for c in cameras], dtype=points.dtype)[:, None]
    pixels = torch.stack([half + local[..., 0] * scale, half - local[..., 1] * scale], dim=-1)
    return pixels, local[..., 2]


def splats(points: torch.Tensor, cameras: list[Camera], scales: torch.Tensor, colours: torch.Tensor,
           opacities: torch.Tensor) -> Splats:
    """The Gaussians at `points` (F, N, 3) of world radius `scales` (N,) as each frame's camera sees them."""
    pixels, depths = project(points, cameras)
    scale = torch.tensor([c.scale for c in cameras], dtype=points.dtype)[:, None]
    return Splats(pixels, depths, scales[None, :] * scale, colours, opacities)
