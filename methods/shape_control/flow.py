"""The tiny rectified-flow generator, on the latent of a linear autoencoder of 16^3 occupancy, standing in for
TRELLIS's sparse-structure flow (a flow on the latent of a structure VAE).

The autoencoder is PCA of the training occupancies mapped to {-1, +1}: E projects onto the top `latent_dim`
components and whitens them, D maps back and thresholds at 0. The flow is an MLP v(z_t, t) regressed on
eps - z_0 along z_t = (1 - t) z_0 + t eps (rectified flow, Liu et al., 2023); a sample integrates dz/dt = v from
t = 1 to 0 by Euler steps. SpaceControl starts instead from the encoded control noised to t0 = tau0 (`sdedit`).

A 3D CNN on the occupancy itself was tried first: trained for the same few minutes on one CPU thread its
unconditional samples were sparse blobs (voxel Jaccard distance 0.90 to the nearest training shape, real shapes
0.04), where this latent flow reached 0.16 in one minute. The default recipe (12,000 Adam steps at 2e-3 with an
EMA of the weights, about 3.5 minutes on one thread) brings 256 samples to 0.12 where 4,000 steps at 1e-3 gave
0.18 and real shapes 0.05 (methods/shape_control/README.md).
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.model_cache import TRAINING_THREADS
from methods.common.torch_cache import Trained, load_weights, prepared
from methods.shape_control.training_set import training_shapes


@dataclass(frozen=True)
class FlowConfig:
    """Everything that changes the trained weights; its hash names the cache folder. Bump `data_version` when
    the furniture generator changes what it draws."""

    data_version: int = 1
    resolution: int = 16
    train_shapes: int = 2000
    latent_dim: int = 64
    hidden: int = 512
    steps: int = 12000
    batch_size: int = 256
    learning_rate: float = 2e-3
    ema: float = 0.999  # the decay of an exponential moving average of the velocity's weights (0: none)


def network(config: FlowConfig) -> Any:
    """The autoencoder (buffers: mean, basis, latent scale) and the velocity MLP in one module."""
    import torch
    from torch import nn

    voxels = config.resolution ** 3

    class LatentFlow(nn.Module):
        mean: torch.Tensor  # buffers, registered in __init__
        basis: torch.Tensor
        scale: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.zeros(voxels))
            self.register_buffer("basis", torch.zeros(config.latent_dim, voxels))
            self.register_buffer("scale", torch.ones(config.latent_dim))
            width = config.hidden
            self.velocity = nn.Sequential(nn.Linear(config.latent_dim + 1, width), nn.SiLU(),
                                          nn.Linear(width, width), nn.SiLU(), nn.Linear(width, width), nn.SiLU(),
                                          nn.Linear(width, config.latent_dim))

        def encode(self, grids: torch.Tensor) -> torch.Tensor:
            """(N, R, R, R) occupancies -> (N, latent_dim) whitened latents."""
            signed = grids.reshape(len(grids), -1).float() * 2.0 - 1.0
            return (signed - self.mean) @ self.basis.T / self.scale

        def decode_signed(self, latents: torch.Tensor) -> torch.Tensor:
            """(N, latent_dim) -> (N, R^3) the linear decoder's signed field (occupied where > 0), differentiable:
            the guidance and optimisation baselines' soft occupancy is built on it."""
            return (latents * self.scale) @ self.basis + self.mean

        def decode(self, latents: torch.Tensor) -> torch.Tensor:
            side = config.resolution
            return (self.decode_signed(latents) > 0).reshape(-1, side, side, side)

        def forward(self, z: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return self.velocity(torch.cat([z, t.view(-1, 1)], dim=1))

    return LatentFlow()


def train(config: FlowConfig, seed: int) -> Trained:
    """PCA of the training shapes (with their mirror images in x and y: furniture is symmetric in both), then
    Adam with a cosine decay on the rectified-flow loss over their latents; the weights kept are the EMA's when
    `config.ema` is set."""
    import torch

    torch.manual_seed(seed)
    started = time.perf_counter()
    grids, _ = training_shapes(config.train_shapes, config.resolution)
    mirrored = np.concatenate([grids, grids[:, ::-1], grids[:, :, ::-1]])
    signed = mirrored.reshape(len(mirrored), -1).astype(np.float64) * 2.0 - 1.0
    mean = signed.mean(axis=0)
    # randomised SVD (Halko et al.; seeded above): LAPACK's full SVD of a 6000 x 4096 matrix took minutes here
    _, singular, vectors = torch.svd_lowrank(torch.from_numpy(signed - mean), q=config.latent_dim + 8, niter=6)
    model = network(config)
    model.mean.copy_(torch.from_numpy(mean))
    model.basis.copy_(vectors[:, :config.latent_dim].T)
    model.scale.copy_(singular[:config.latent_dim] / math.sqrt(len(signed)))
    latents = model.encode(torch.from_numpy(np.ascontiguousarray(mirrored))).detach()
    optimiser = torch.optim.Adam(model.velocity.parameters(), lr=config.learning_rate)
    average = torch.optim.swa_utils.AveragedModel(
        model.velocity, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(config.ema)) if config.ema else None
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: 0.5 * (1.0 + math.cos(math.pi * step / config.steps)))
    generator = torch.Generator().manual_seed(seed)
    losses: list[float] = []
    for _ in range(config.steps):
        batch = latents[torch.randint(len(latents), (config.batch_size,), generator=generator)]
        t = torch.rand(config.batch_size, generator=generator)
        noise = torch.randn(batch.shape, generator=generator)
        noised = (1 - t[:, None]) * batch + t[:, None] * noise
        loss = torch.nn.functional.mse_loss(model(noised, t), noise - batch)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        if average is not None:
            average.update_parameters(model.velocity)
        losses.append(loss.item())
    if average is not None:
        model.velocity.load_state_dict(average.module.state_dict())
    every = max(1, config.steps // 10)
    record = {"config": asdict(config), "seed": seed, "train_wall_s": round(time.perf_counter() - started, 1),
              f"loss_every_{every}_steps": [round(float(np.mean(losses[i:i + every])), 4)
                                            for i in range(0, len(losses), every)],
              "parameters": sum(p.numel() for p in model.velocity.parameters())}
    return model.eval(), record


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: FlowConfig = FlowConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the flow model trained with `config` and `seed` (trained there first if absent)."""
    return prepared("shape-flow", config, seed, num_threads, cache_dir, train)


def load(root: Path, config: FlowConfig) -> Any:
    return load_weights(root, network(config))


def euler_times(t0: float, steps: int) -> np.ndarray:
    """The Euler grid from t0 down to 0: round(t0 * steps) steps (at least one), the full path's step size."""
    return np.linspace(t0, 0.0, max(1, round(t0 * steps)) + 1)


def source_noise(model: Any, count: int, rng: np.random.Generator) -> Any:
    """(count, latent_dim) float32 standard normal noise: the one draw every flow method makes first, so methods
    given the same seed start from the same noise."""
    import torch

    return torch.from_numpy(rng.standard_normal((count, model.scale.shape[0])).astype(np.float32))


def sdedit(model: Any, start: np.ndarray, t0: float, steps: int, rng: np.random.Generator) -> np.ndarray:
    """SpaceControl's steps 1-3 on occupancy grids `start` (N, R, R, R): z_c = E(start),
    z_t0 = (1 - t0) z_c + t0 eps, Euler steps of the flow from t0 to 0 (`euler_times`), then D. t0 = 1 ignores the
    control: unconditional sampling. Returns the (N, R, R, R) bool occupancies."""
    import torch

    with torch.no_grad():
        control = model.encode(torch.from_numpy(np.ascontiguousarray(start)))
        z = (1.0 - t0) * control + t0 * source_noise(model, len(start), rng)
        times = euler_times(t0, steps)
        for now, after in zip(times[:-1], times[1:], strict=True):
            z = z - float(now - after) * model(z, torch.full((len(z),), float(now)))
        return model.decode(z).numpy()
