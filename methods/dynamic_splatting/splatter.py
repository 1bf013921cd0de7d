"""A differentiable Gaussian splatter in pure PyTorch: isotropic 2D Gaussians (the orthographic projection of
isotropic 3D ones) composited front to back, `C = sum_i c_i a_i T_i + (1 - sum_i a_i T_i) * background` with
`T_i = prod_{j<i} (1 - a_j)` and `a_i = min(0.99, o_i exp(-d^2 / 2 s_i^2))`, cut to 0 beyond 3 s_i (3DGS's
footprint). Written by hand because no CPU splatting library is installed; tiled like 3DGS's rasteriser so a
pixel composites only the Gaussians whose 3-sigma box meets its tile, and every frame of a batch is rendered in
one vectorised pass (the tile lists padded to the longest). `weights` (T_i a_i per pixel) is kept for USplat4D's
Eq. 3, which sums its squares per Gaussian.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

CUTOFF_SIGMAS = 3.0
MAX_ALPHA = 0.99
MIN_TRANSMITTANCE = 1e-12


@dataclass(frozen=True)
class Splats:
    """A batch of F frames of N Gaussians in pixel coordinates (x right, y down); smaller depth is nearer."""

    means: torch.Tensor      # (F, N, 2)
    depths: torch.Tensor     # (F, N)
    sigmas: torch.Tensor     # (N,) or (F, N), pixels
    colours: torch.Tensor    # (N, C) or (F, N, C)
    opacities: torch.Tensor  # (N,) or (F, N)


@dataclass(frozen=True)
class Render:
    """Images (F, H, W, C) and coverage (F, H, W); `weights` (F*tiles, P, K) are the blending weights T_i a_i
    of the Gaussians `index` (F*tiles, K) lists per tile (N: padding) at the tile's pixels `pixel` (F*tiles, P),
    flat indices into (F, H, W) (`inside`: the pixel lies in the image, not in a border tile's overhang)."""

    image: torch.Tensor
    alpha: torch.Tensor
    weights: torch.Tensor
    index: torch.Tensor
    pixel: torch.Tensor
    inside: torch.Tensor

    def _slots(self, count: int) -> torch.Tensor:
        """(F*tiles, K) indices into a flat (F, N + 1) array: each tile's Gaussians in its own frame."""
        frames = self.image.shape[0]
        frame = torch.arange(self.index.shape[0]) // (self.index.shape[0] // frames)
        return frame[:, None] * (count + 1) + self.index

    def per_gaussian_sum(self, values: torch.Tensor, count: int) -> torch.Tensor:
        """(F, count): the sum over each frame's pixels of `values` (shaped like `weights`) per Gaussian."""
        total = torch.zeros(self.image.shape[0] * (count + 1), dtype=values.dtype)
        summed = (values * self.inside[..., None]).sum(dim=1)
        total.index_add_(0, self._slots(count).reshape(-1), summed.reshape(-1))
        return total.view(-1, count + 1)[:, :count]

    def per_gaussian_max(self, values: torch.Tensor, touched: torch.Tensor, count: int) -> torch.Tensor:
        """(F, count): the largest per-pixel `values` (F, H, W) over the pixels where `touched` (shaped like
        `weights`, boolean) holds for each Gaussian; 0 for a Gaussian that touches none."""
        touched = touched & self.inside[..., None]
        gaussian = self._slots(count)[:, None, :].expand_as(touched)
        pixel_value = values.reshape(-1)[self.pixel][:, :, None].expand_as(touched)
        best = torch.zeros(self.image.shape[0] * (count + 1), dtype=values.dtype)
        best.scatter_reduce_(0, gaussian[touched], pixel_value[touched], reduce="amax")
        return best.view(-1, count + 1)[:, :count]


def _per_frame(value: torch.Tensor, frames: int, dims: int) -> torch.Tensor:
    """`value` with a leading frame axis, `dims` axes in all (broadcast when every frame shares it)."""
    return value if value.dim() == dims else value.unsqueeze(0).expand(frames, *value.shape)


def _tile_lists(means: torch.Tensor, depths: torch.Tensor, radii: torch.Tensor, height: int, width: int,
                tile: int) -> torch.Tensor:
    """(F*tiles, K) Gaussian indices per tile, nearest first, padded with N: every Gaussian whose 3-sigma box
    meets the tile (no gradient flows through the lists)."""
    frames, count = depths.shape
    tiles_x, tiles_y = -(-width // tile), -(-height // tile)
    low = torch.floor((means - radii[..., None]) / tile).long()
    high = torch.floor((means + radii[..., None]) / tile).long()
    low[..., 0].clamp_(0, tiles_x - 1), low[..., 1].clamp_(0, tiles_y - 1)
    high[..., 0].clamp_(-1, tiles_x - 1), high[..., 1].clamp_(-1, tiles_y - 1)
    span = int((high - low + 1).clamp(min=0).max().item()) if count else 0
    offsets = torch.arange(max(span, 1))
    tx = low[..., 0, None, None] + offsets[None, None, :, None]
    ty = low[..., 1, None, None] + offsets[None, None, None, :]
    inside = (tx <= high[..., 0, None, None]) & (ty <= high[..., 1, None, None])
    frame = torch.arange(frames)[:, None, None, None]
    tile_id = (frame * tiles_y + ty) * tiles_x + tx
    order = torch.argsort(depths, dim=1, stable=True)
    rank = torch.empty_like(order)
    rank.scatter_(1, order, torch.arange(count).expand(frames, -1))
    gaussian = torch.arange(count)[None, :, None, None].expand_as(tile_id)
    pair_tile, pair_gaussian = tile_id[inside], gaussian[inside]
    pair_rank = rank[:, :, None, None].expand_as(tile_id)[inside]
    key = torch.argsort(pair_tile * (count + 1) + pair_rank, stable=True)
    pair_tile, pair_gaussian = pair_tile[key], pair_gaussian[key]
    total_tiles = frames * tiles_x * tiles_y
    per_tile = torch.bincount(pair_tile, minlength=total_tiles)
    longest = int(per_tile.max().item()) if pair_tile.numel() else 0
    start = torch.cumsum(per_tile, 0) - per_tile
    slot = torch.arange(pair_tile.numel()) - start[pair_tile]
    lists = torch.full((total_tiles, max(longest, 1)), count, dtype=torch.long)
    lists[pair_tile, slot] = pair_gaussian
    return lists


def splat(scene: Splats, height: int, width: int, background: torch.Tensor | None = None,
          tile: int = 8) -> Render:
    """Render every frame of `scene` at `height` x `width` (front-to-back alpha compositing, differentiable
    in means, sigmas, colours and opacities)."""
    frames, count = scene.depths.shape
    sigmas = _per_frame(scene.sigmas, frames, 2)
    opacities = _per_frame(scene.opacities, frames, 2)
    colours = _per_frame(scene.colours, frames, 3)
    channels = colours.shape[-1]
    with torch.no_grad():
        lists = _tile_lists(scene.means.detach(), scene.depths.detach(), CUTOFF_SIGMAS * sigmas.detach(),
                            height, width, tile)
    tiles_x, tiles_y = -(-width // tile), -(-height // tile)
    frame_of = torch.arange(lists.shape[0]) // (tiles_x * tiles_y)
    within = torch.arange(lists.shape[0]) % (tiles_x * tiles_y)
    py, px = torch.meshgrid(torch.arange(tile), torch.arange(tile), indexing="ij")
    ys = (within // tiles_x)[:, None] * tile + py.reshape(1, -1)
    xs = (within % tiles_x)[:, None] * tile + px.reshape(1, -1)
    flat = frame_of[:, None] * (count + 1) + lists  # index into the padded (F, N + 1) arrays
    pad = torch.zeros(frames, 1, dtype=scene.means.dtype)
    mean = torch.cat([scene.means, pad[..., None].expand(-1, -1, 2)], 1).reshape(-1, 2)[flat]
    sigma = torch.cat([sigmas, pad + 1.0], 1).reshape(-1)[flat]
    opacity = torch.cat([opacities, pad], 1).reshape(-1)[flat]
    colour = torch.cat([colours, pad[..., None].expand(-1, -1, channels)], 1).reshape(-1, channels)[flat]
    dx = (xs.to(mean.dtype) + 0.5)[:, :, None] - mean[:, None, :, 0]
    dy = (ys.to(mean.dtype) + 0.5)[:, :, None] - mean[:, None, :, 1]
    exponent = (dx * dx + dy * dy) * (0.5 / sigma**2)[:, None, :]
    # cut at 3 sigma; the exponent is clamped there first, so no far pixel computes a denormal (slow on CPU)
    cut = 0.5 * CUTOFF_SIGMAS**2
    alpha = torch.where(exponent <= cut, (opacity[:, None, :] * torch.exp(-exponent.clamp(max=cut))).clamp(
        max=MAX_ALPHA), torch.zeros_like(exponent))
    # T_i in log space, floored at 1e-12: behind many opaque Gaussians the running product would reach denormal
    # floats, which CPUs handle a hundred times slower; a floored T changes a pixel by under 1e-12
    log_passed = torch.cumsum(torch.log1p(-alpha), -1) - torch.log1p(-alpha)
    transmittance = torch.exp(log_passed.clamp(min=math.log(MIN_TRANSMITTANCE)))
    weights = transmittance * alpha
    coverage = weights.sum(-1)
    rgb = weights @ colour
    if background is not None:
        rgb = rgb + (1 - coverage)[..., None] * background
    inside = (ys < height) & (xs < width)
    pixel = (frame_of[:, None] * height + ys.clamp(max=height - 1)) * width + xs.clamp(max=width - 1)
    image = torch.zeros(frames * height * width, channels, dtype=rgb.dtype).index_put(
        (pixel[inside],), rgb[inside])
    cover = torch.zeros(frames * height * width, dtype=rgb.dtype).index_put((pixel[inside],), coverage[inside])
    return Render(image.view(frames, height, width, channels), cover.view(frames, height, width), weights,
                  lists, pixel, inside)
