"""USplat4D's per-Gaussian uncertainty (Guo et al., arXiv 2510.12768; spec shared/papers/usplat4d.md).

Eq. 3: sigma^2_{i,t} = [sum_{h in Omega_{i,t}} (T^h_{i,t} alpha_i)^2]^-1 over the pixels h Gaussian i touches in
frame t; we take alpha_i at the pixel (opacity times the Gaussian's falloff), so each term is the blending weight.
Eq. 5: u_{i,t} = sigma^2_{i,t} when every pixel it touches has L1 error below eta, else phi (a Gaussian the
camera does not see at all gets phi too: its sum is empty). Eq. 6: U_{i,t} = R_wc diag(u, u, r_z u) R_wc^T, the
camera's depth axis r_z = 5 times less certain (monocular depth ambiguity). eta and phi are not in the spec.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from methods.dynamic_splatting.cameras import Camera
from methods.dynamic_splatting.splatter import Render

TOUCH_WEIGHT = 1.0 / 255  # a pixel is in Omega_{i,t} when the Gaussian's blending weight there exceeds this


@dataclass(frozen=True)
class Uncertainty:
    u: torch.Tensor        # (T, N) Eq. 5
    inverse: torch.Tensor  # (T, N, 3, 3) U^-1 of Eq. 6, the weight of a deviation in the losses

    def reliable_frame(self) -> torch.Tensor:
        """(N,) each Gaussian's most reliable frame (least u; the earliest on ties)."""
        return torch.argmin(self.u, dim=0)

    def per_gaussian(self) -> torch.Tensor:
        """(N,) the mean u over frames: one figure per Gaussian to rank, pick key nodes and calibrate with."""
        return self.u.mean(dim=0)


def gated_uncertainty(render: Render, targets: torch.Tensor, count: int, eta: float, phi: float) -> torch.Tensor:
    """(T, N) Eq. 3 gated by Eq. 5, from a render of the training views and their images `targets`."""
    weights = render.weights.detach()
    information = render.per_gaussian_sum(weights**2, count)
    error = (render.image.detach() - targets).abs().mean(dim=-1)
    worst = render.per_gaussian_max(error, weights > TOUCH_WEIGHT, count)
    converged = (information > 0) & (worst < eta)
    return torch.where(converged, 1.0 / information.clamp(min=1e-12), torch.full_like(information, phi))


def anisotropic_inverse(u: torch.Tensor, cameras: list[Camera], depth_ratio: float) -> torch.Tensor:
    """(T, N, 3, 3) U^-1 for Eq. 6's U = R_wc diag(u, u, r_z u) R_wc^T (frame t seen by `cameras[t]`)."""
    rotations = torch.stack([c.rotation() for c in cameras]).to(u.dtype)
    scale = torch.tensor([1.0, 1.0, 1.0 / depth_ratio], dtype=u.dtype)
    diagonal = torch.diag_embed(scale[None, None, :] / u[..., None])
    return rotations[:, None] @ diagonal @ rotations[:, None].transpose(-1, -2)


def uncertainty(render: Render, targets: torch.Tensor, count: int, cameras: list[Camera], eta: float, phi: float,
                depth_ratio: float) -> Uncertainty:
    """Eq. 3, 5 and 6 for each of `count` Gaussians in every training frame."""
    u = gated_uncertainty(render, targets, count, eta, phi)
    return Uncertainty(u, anisotropic_inverse(u, cameras, depth_ratio))
