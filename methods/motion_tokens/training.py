"""Training a motion tokenizer on the training clips and reconstructing the test clips with it.

The clips are normalised first (the spec says raw joint coordinates, not how they are scaled): every joint is
taken from the clip's mean root place on the floor (where a clip happens is not motion) and each axis divided by
its standard deviation over the training clips; decoding undoes both.
Loss: L1 reconstruction + beta * commitment (+ the codebook loss when the codebook is not an EMA), Adam with a
cosine learning-rate decay over `steps` batches of `batch` random training clips.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from harness import RunContext
from methods.motion_tokens.params import NetworkParams, VQParams
from methods.motion_tokens.problem import VARIANTS, MotionInputs, Reconstruction
from methods.motion_tokens.vqvae import MotionAutoencoder, Quantiser

FLOOR_AXES = [0, 2]  # x and z: the floor plane (y is up)
LOSS_WINDOW = 20  # training steps per point of the recorded loss curve


@dataclass(frozen=True)
class Normaliser:
    """Clips as every joint's position relative to the clip's mean root place on the floor, each axis divided by
    its standard deviation over the training clips' joints and frames (`scale`, (3,)). One scale per axis keeps
    the L1 loss proportional to the error in metres, as MPJPE counts it, and the root's path stays in every
    joint's coordinates, so every token carries it: a conv shares its weights over the joints, and a path kept in
    the root's column alone (the other joints relative to the root) did not get through the codebook."""

    scale: np.ndarray

    @staticmethod
    def origin(clips: np.ndarray) -> np.ndarray:
        """Each clip's mean root position on the floor, (clips, 1, 1, 3)."""
        origin = np.zeros((len(clips), 1, 1, 3))
        origin[..., FLOOR_AXES] = clips[:, :, :1, FLOOR_AXES].mean(axis=1, keepdims=True)
        return origin

    @classmethod
    def fitted(cls, clips: np.ndarray) -> Normaliser:
        return cls((clips - cls.origin(clips)).std(axis=(0, 1, 2)))

    def forward(self, clips: np.ndarray) -> np.ndarray:
        return (clips - self.origin(clips)) / self.scale

    def inverse(self, normalised: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Normalised clips back to metres, placed where `reference` (the inputs they came from) was."""
        return normalised * self.scale + self.origin(reference)


def _tensor(clips: np.ndarray, channels: int) -> torch.Tensor:
    """(clips, frames, joints, 3) -> (clips, channels, frames, joints) float32, the first `channels` axes kept."""
    return torch.from_numpy(np.ascontiguousarray(clips[..., :channels].transpose(0, 3, 1, 2))).float()


def train_and_reconstruct(inputs: MotionInputs, params: NetworkParams, ctx: RunContext,
                          in_channels: int = 3) -> Reconstruction:
    """Train on `inputs.train` (seeded by the run's seed) and decode every test variant; `VQParams` quantise,
    plain `NetworkParams` do not. `in_channels` 2: the encoder sees only x and y (a front camera's 2D pose) and
    the decoder still predicts all three coordinates; the clip's placement on the floor (its mean root
    position, depth included) is given to every tokenizer alike, so the 2D one loses the motion's depth only."""
    torch.manual_seed(ctx.seed)
    generator = torch.Generator().manual_seed(ctx.seed)
    frames = inputs.train.shape[1]
    if frames % params.downsample:
        raise ValueError(f"clips of {frames} frames cannot be downsampled by {params.downsample}")
    normaliser = Normaliser.fitted(inputs.train)
    quantiser = None
    if isinstance(params, VQParams):
        quantiser = Quantiser(params.codebook_size, params.latent_dim, params.ema, params.reset, params.decay)
    model = MotionAutoencoder(in_channels, 3, params.width, params.latent_dim, params.downsample, quantiser)
    target = _tensor(normaliser.forward(inputs.train), 3)
    source = target[:, :in_channels]
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=params.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, params.steps)
    beta = params.beta if isinstance(params, VQParams) else 0.0
    losses = []
    model.train()
    for _ in range(params.steps):
        batch = torch.randint(0, len(target), (min(params.batch, len(target)),), generator=generator)
        decoded, _, commitment, codebook_loss = model(source[batch], generator)
        loss = (decoded - target[batch]).abs().mean() + beta * commitment + codebook_loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        losses.append(loss.item())
    # the loss averaged over windows of LOSS_WINDOW steps: a report keeps every stored point, and one per step
    # made the main suite's curves.csv 3 MB
    windows = range(0, len(losses), LOSS_WINDOW)
    ctx.record_curve("train_loss", [min(start + LOSS_WINDOW, len(losses)) for start in windows],
                     [float(np.mean(losses[start:start + LOSS_WINDOW])) for start in windows])
    ctx.record("final_train_loss", float(np.mean(losses[-20:])), higher_is_better=False)
    model.eval()
    decoded_clips, tokens = {}, None
    with torch.no_grad():
        for variant in VARIANTS:
            clips = inputs.test[variant]
            decoded, ids, _, _ = model(_tensor(normaliser.forward(clips), in_channels), generator)
            decoded_clips[variant] = normaliser.inverse(decoded.permute(0, 2, 3, 1).double().numpy(), clips)
            if variant == "clean" and ids is not None:
                tokens = ids.numpy()
    return Reconstruction(decoded_clips, tokens, params.codebook_size if isinstance(params, VQParams) else 0)
