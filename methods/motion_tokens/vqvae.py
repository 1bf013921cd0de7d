"""4DMoT's network (spec shared/papers/mtvcraft.md, from the code README and a review): 2D-convolution residual
blocks over the (frame, joint) axes, temporal average-pool downsampling to f/d x j latent vectors, nearest-code
quantisation with an EMA codebook and dead-code reset, and a mirrored decoder. The spec gives no widths, depths or
codebook sizes; ours are small (methods.motion_tokens.params)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from methods.motion_tokens.pose_metrics import perplexity


class ResidualBlock(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(), nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, padding=1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x)


def encoder(in_channels: int, width: int, latent_dim: int, downsample: int) -> nn.Module:
    """(B, in_channels, f, j) -> (B, latent_dim, f / downsample, j)."""
    layers: list[nn.Module] = [nn.Conv2d(in_channels, width, 3, padding=1)]
    for _ in range(int(math.log2(downsample))):
        layers += [ResidualBlock(width), nn.AvgPool2d((2, 1))]
    return nn.Sequential(*layers, ResidualBlock(width), nn.ReLU(), nn.Conv2d(width, latent_dim, 1))


def decoder(latent_dim: int, width: int, out_channels: int, downsample: int) -> nn.Module:
    """The encoder's mirror: nearest-neighbour temporal upsampling in place of the pooling."""
    layers: list[nn.Module] = [nn.Conv2d(latent_dim, width, 1), ResidualBlock(width)]
    for _ in range(int(math.log2(downsample))):
        layers += [nn.Upsample(scale_factor=(2, 1), mode="nearest"), ResidualBlock(width)]
    return nn.Sequential(*layers, nn.ReLU(), nn.Conv2d(width, out_channels, 3, padding=1))


class Quantiser(nn.Module):
    """Nearest-code lookup with a straight-through gradient.

    With `ema` the codes are moving averages of the vectors assigned to them (VQ-VAE-2's update, decay `decay`,
    the counts Laplace-smoothed as in SoundStream's and Sonnet's `VectorQuantizerEMA`, so a rare code's mean is not
    divided by a vanishing count); without, they learn from the codebook loss. With `reset`, every `RESET_EVERY`
    training steps until the fraction `reset_until` of training, codes no vector chose over the last
    `reset_window` steps are replaced by random vectors of the batch, at most `reset_cap` of the codebook at a
    time (T2M-GPT's reset, restricted so that it settles: the reset count falls to zero by construction, and the
    codes then converge undisturbed). `last_step` holds the last training step's usage statistics."""

    counts: torch.Tensor  # buffers, registered in __init__
    sums: torch.Tensor
    last_used: torch.Tensor

    def __init__(self, size: int, dim: int, ema: bool, reset: bool, decay: float, reset_window: int = 50,
                 reset_cap: float = 0.1, reset_until: int | None = None) -> None:
        super().__init__()
        self.ema, self.reset, self.decay = ema, reset, decay
        self.reset_window, self.reset_cap, self.reset_until = reset_window, reset_cap, reset_until
        self.codebook = nn.Parameter(torch.zeros(size, dim), requires_grad=not ema)
        self.register_buffer("counts", torch.ones(size))
        self.register_buffer("sums", torch.zeros(size, dim))
        self.register_buffer("last_used", torch.zeros(size, dtype=torch.long))
        self.initialised = False
        self.step = 0
        self.last_step = CodebookStep(0, 0.0, 0)

    def nearest(self, z: torch.Tensor) -> torch.Tensor:
        return torch.cdist(z, self.codebook.detach()).argmin(dim=1)

    def forward(self, z: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(quantised z with straight-through gradient, code ids, codebook loss) for latents z (N, dim)."""
        if self.training and not self.initialised:
            self._replace(torch.ones(len(self.codebook), dtype=torch.bool), z.detach(), generator)
            self.initialised = True
        ids = self.nearest(z)
        chosen = self.codebook[ids]
        codebook_loss = z.new_zeros(()) if self.ema else F.mse_loss(chosen, z.detach())
        if self.training:
            self._update(z.detach(), ids, generator)
        return z + (chosen - z).detach(), ids, codebook_loss

    @torch.no_grad()
    def _update(self, z: torch.Tensor, ids: torch.Tensor, generator: torch.Generator) -> None:
        self.step += 1
        onehot = F.one_hot(ids, len(self.codebook)).to(z.dtype)
        assigned = onehot.sum(dim=0)
        self.last_used[assigned > 0] = self.step
        if self.ema:
            self.counts.mul_(self.decay).add_(assigned, alpha=1 - self.decay)
            self.sums.mul_(self.decay).add_(onehot.T @ z, alpha=1 - self.decay)
            self.codebook.copy_(self.sums / laplace_smoothed(self.counts)[:, None])
        replaced = 0
        if self.reset and self.step % RESET_EVERY == 0 and (self.reset_until is None or self.step <= self.reset_until):
            replaced = self._replace(self._dead(), z, generator)
        self.last_step = CodebookStep(int((assigned > 0).sum()), perplexity(ids.numpy(), len(self.codebook)), replaced)

    def _dead(self) -> torch.Tensor:
        """Codes unused over the last `reset_window` steps, the longest-unused first, at most the cap's share."""
        idle = self.step - self.last_used
        dead = torch.nonzero(idle >= self.reset_window).flatten()
        cap = max(1, int(self.reset_cap * len(self.codebook)))
        chosen = dead[torch.argsort(idle[dead], descending=True, stable=True)[:cap]]
        mask = torch.zeros(len(self.codebook), dtype=torch.bool)
        mask[chosen] = True
        return mask

    @torch.no_grad()
    def _replace(self, dead: torch.Tensor, z: torch.Tensor, generator: torch.Generator) -> int:
        """Codes `dead` set to random rows of z with the statistics of one assignment; how many were replaced."""
        count = int(dead.sum())
        if count == 0:
            return 0
        rows = torch.randint(0, len(z), (count,), generator=generator)
        self.codebook[dead] = z[rows]
        self.counts[dead] = 1.0
        self.sums[dead] = z[rows]
        self.last_used[dead] = self.step
        return count


RESET_EVERY = 10  # training steps between dead-code checks
LAPLACE_EPSILON = 1e-5


@dataclass(frozen=True)
class CodebookStep:
    """One training step's codebook statistics: codes the batch chose, the perplexity of its choices, codes reset."""

    used: int
    perplexity: float
    reset: int


def laplace_smoothed(counts: torch.Tensor, epsilon: float = LAPLACE_EPSILON) -> torch.Tensor:
    """(n_k + eps) / (n + K eps) * n: the total kept, no count zero (Sonnet's VectorQuantizerEMA)."""
    total = counts.sum()
    return (counts + epsilon) / (total + len(counts) * epsilon) * total


class MotionAutoencoder(nn.Module):
    """Encoder, optional quantiser, decoder; clips enter as (B, channels, frames, joints)."""

    def __init__(self, in_channels: int, out_channels: int, width: int, latent_dim: int, downsample: int,
                 quantiser: Quantiser | None) -> None:
        super().__init__()
        self.encode = encoder(in_channels, width, latent_dim, downsample)
        self.decode = decoder(latent_dim, width, out_channels, downsample)
        self.quantiser = quantiser

    def forward(self, x: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor | None,
                                                                              torch.Tensor, torch.Tensor]:
        """(reconstruction, code ids (B, f/d * j) or None, commitment loss, codebook loss)."""
        latent = self.encode(x)
        if self.quantiser is None:
            zero = latent.new_zeros(())
            return self.decode(latent), None, zero, zero
        b, d, f, j = latent.shape
        flat = latent.permute(0, 2, 3, 1).reshape(-1, d)
        quantised, ids, codebook_loss = self.quantiser(flat, generator)
        commitment = F.mse_loss(flat, quantised.detach())
        restored = quantised.reshape(b, f, j, d).permute(0, 3, 1, 2)
        return self.decode(restored), ids.reshape(b, f * j), commitment, codebook_loss
