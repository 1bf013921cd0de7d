"""Training a motion tokenizer on the training clips and reconstructing the test clips with it.

The clips are normalised first (the spec says raw joint coordinates, not how they are scaled): every joint is
taken from the clip's mean root place on the floor (where a clip happens is not motion) and each axis divided by
its standard deviation over the training clips; decoding undoes both.
Loss: L1 reconstruction + beta * commitment (+ the codebook loss when the codebook is not an EMA), Adam with a
cosine learning-rate decay over `steps` batches of `batch` random training clips.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from harness import RunContext
from methods.motion_tokens.params import NetworkParams, VQParams
from methods.motion_tokens.problem import VARIANTS, MotionInputs, Reconstruction
from methods.motion_tokens.pose_metrics import mpjpe
from methods.motion_tokens.vqvae import CodebookStep, MotionAutoencoder, Quantiser

FLOOR_AXES = [0, 2]  # x and z: the floor plane (y is up)
LOSS_WINDOW = 20  # training steps per point of the recorded loss and codebook curves
MM = 1000.0


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


VALIDATION_SHARE = 0.1  # of the training clips, held out to follow the validation MPJPE (never the test clips)
VALIDATION_POINTS = 12  # validation MPJPE evaluations over training
ORIGIN_BITS = 2 * 16  # a clip's mean root place on the floor, two 16-bit values, given to every tokenizer
FLOAT_BITS = 32  # a continuous latent's value


def train_and_reconstruct(inputs: MotionInputs, params: NetworkParams, ctx: RunContext,
                          in_channels: int = 3) -> Reconstruction:
    """Train on `inputs.train` less a held-out validation share (seeded by the run's seed) and decode every test
    variant; `VQParams` quantise, plain `NetworkParams` do not. `in_channels` 2: the encoder sees only x and y (a
    front camera's 2D pose) and the decoder still predicts all three coordinates; the clip's placement on the floor
    (its mean root position, depth included) is given to every tokenizer alike, so the 2D one loses the motion's
    depth only. Recorded: the loss, validation MPJPE and (quantisers) codebook usage, perplexity and resets per
    step window as curves; `val_gain_last_quarter`, the per cent the validation MPJPE fell over the last quarter
    of the steps, is the convergence evidence."""
    torch.manual_seed(ctx.seed)
    generator = torch.Generator().manual_seed(ctx.seed)
    frames = inputs.train.shape[1]
    if frames % params.downsample:
        raise ValueError(f"clips of {frames} frames cannot be downsampled by {params.downsample}")
    held_out = max(1, int(round(VALIDATION_SHARE * len(inputs.train))))
    order = np.random.default_rng(ctx.seed).permutation(len(inputs.train))
    train, validation = inputs.train[order[held_out:]], inputs.train[order[:held_out]]
    normaliser = Normaliser.fitted(train)
    quantiser = None
    if isinstance(params, VQParams):
        quantiser = Quantiser(params.codebook_size, params.latent_dim, params.ema, params.reset, params.decay,
                              params.reset_window, params.reset_cap, int(params.reset_until * params.steps))
    model = MotionAutoencoder(in_channels, 3, params.width, params.latent_dim, params.downsample, quantiser)
    target = _tensor(normaliser.forward(train), 3)
    source = target[:, :in_channels]
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=params.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, params.steps)
    beta = params.beta if isinstance(params, VQParams) else 0.0
    history = TrainingHistory()
    checkpoints = set(np.linspace(0, params.steps, VALIDATION_POINTS + 1).round().astype(int)[1:])
    for step in range(1, params.steps + 1):
        model.train()
        batch = torch.randint(0, len(target), (min(params.batch, len(target)),), generator=generator)
        decoded, _, commitment, codebook_loss = model(source[batch], generator)
        loss = (decoded - target[batch]).abs().mean() + beta * commitment + codebook_loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        history.losses.append(loss.item())
        if quantiser is not None:
            history.codebook.append(quantiser.last_step)
        if step in checkpoints:
            history.validation.append((step, _validation_mpjpe(model, normaliser, validation, in_channels,
                                                               generator)))
    history.record(ctx, params.codebook_size if isinstance(params, VQParams) else 0)
    model.eval()
    decoded_clips, tokens = {}, None
    with torch.no_grad():
        for variant in VARIANTS:
            clips = inputs.test[variant]
            decoded, ids, _, _ = model(_tensor(normaliser.forward(clips), in_channels), generator)
            decoded_clips[variant] = normaliser.inverse(decoded.permute(0, 2, 3, 1).double().numpy(), clips)
            if variant == "clean" and ids is not None:
                tokens = ids.numpy()
    latents = frames // params.downsample * inputs.train.shape[2]  # per clip: one token, or latent_dim floats
    if isinstance(params, VQParams):
        return Reconstruction(decoded_clips, tokens, params.codebook_size,
                              bits_per_clip=latents * math.log2(params.codebook_size) + ORIGIN_BITS)
    return Reconstruction(decoded_clips, bits_per_clip=latents * params.latent_dim * FLOAT_BITS + ORIGIN_BITS)


def _validation_mpjpe(model: MotionAutoencoder, normaliser: Normaliser, clips: np.ndarray, in_channels: int,
                      generator: torch.Generator) -> float:
    """MPJPE (mm) of the held-out training clips' reconstruction, the model left in eval mode (no codebook update)."""
    model.eval()
    with torch.no_grad():
        decoded, _, _, _ = model(_tensor(normaliser.forward(clips), in_channels), generator)
    restored = normaliser.inverse(decoded.permute(0, 2, 3, 1).double().numpy(), clips)
    return MM * mpjpe(restored, clips)


@dataclass
class TrainingHistory:
    """Per-step losses and codebook statistics, and (step, validation MPJPE) pairs, recorded as the run's curves."""

    losses: list[float] = field(default_factory=list)
    codebook: list[CodebookStep] = field(default_factory=list)
    validation: list[tuple[int, float]] = field(default_factory=list)

    def record(self, ctx: RunContext, codebook_size: int) -> None:
        # windows of LOSS_WINDOW steps: a report keeps every stored point, and one per step made the main suite's
        # curves.csv 3 MB
        ctx.record_curve("train_loss", *_windowed(self.losses))
        ctx.record("final_train_loss", float(np.mean(self.losses[-LOSS_WINDOW:])), higher_is_better=False)
        steps, values = zip(*self.validation, strict=True)
        ctx.record_curve("val_mpjpe", steps, values, unit="mm", higher_is_better=False)
        last_quarter = next(v for s, v in self.validation if s >= 0.75 * steps[-1])
        ctx.record("val_gain_last_quarter", 100 * (last_quarter - values[-1]) / last_quarter, unit="%")
        if self.codebook:
            ctx.record_curve("train_usage", *_windowed([100 * c.used / codebook_size for c in self.codebook]),
                             unit="%", higher_is_better=True)
            ctx.record_curve("train_perplexity", *_windowed([c.perplexity for c in self.codebook]),
                             higher_is_better=True)
            ctx.record_curve("codes_reset", *_windowed([float(c.reset) for c in self.codebook], total=True))
            ctx.record("codes_reset_total", float(sum(c.reset for c in self.codebook)))
            last_reset = max((i + 1 for i, c in enumerate(self.codebook) if c.reset), default=0)
            ctx.record("last_reset_step", float(last_reset))


def _windowed(values: list[float], total: bool = False) -> tuple[list[int], list[float]]:
    """(window ends, window means or sums) over windows of LOSS_WINDOW steps."""
    starts = range(0, len(values), LOSS_WINDOW)
    reduce = np.sum if total else np.mean
    return ([min(start + LOSS_WINDOW, len(values)) for start in starts],
            [float(reduce(values[start:start + LOSS_WINDOW])) for start in starts])
