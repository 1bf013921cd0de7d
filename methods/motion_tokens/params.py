"""Every motion tokenizer's parameters: types, ranges and defaults. Torch-free, so `harness validate` and
`harness plan` check a suite without importing a method. The spec leaves the sizes open (β, codebook size and
the widths were not retrieved); ours are small enough to train in seconds on one CPU thread."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness import MethodParams


class NetworkParams(MethodParams):
    """The convolutional encoder-decoder over (frame, joint) and its training (full clips, Adam, L1 loss)."""

    tiny = {"steps": 3, "width": 8, "latent_dim": 8}
    width: int = Field(16, ge=4, description="channels of the residual blocks")
    latent_dim: int = Field(8, ge=2, description="dimension of a latent vector (and of a code)")
    downsample: Literal[1, 2, 4, 8] = Field(4, description="temporal average-pool factor: f/downsample x j latents")
    steps: int = Field(3000, ge=1, description="optimiser steps")
    batch: int = Field(4, ge=1, description="clips per step")
    lr: float = Field(2e-3, gt=0)


class VQParams(NetworkParams):
    """4DMoT's quantiser: nearest-code lookup, the codebook updated by EMA with Laplace-smoothed counts (else by its
    own loss term), codes unused over a window of steps reset to random encoder outputs (a capped share at a time,
    early in training only, so the codebook settles), loss L1 + beta * commitment."""

    tiny = {**NetworkParams.tiny, "codebook_size": 16}
    codebook_size: int = Field(512, ge=2)
    ema: bool = Field(True, description="update the codebook by exponential moving averages (else by gradient)")
    reset: bool = Field(True, description="reset codes unused over `reset_window` steps to random encoder outputs "
                                          "of the batch, in the first `reset_until` of training")
    decay: float = Field(0.99, gt=0, lt=1, description="EMA decay of the code statistics")
    beta: float = Field(0.25, ge=0, description="weight of the commitment loss")
    reset_window: int = Field(50, ge=1, description="a code no vector chose over this many steps is dead")
    reset_cap: float = Field(0.1, gt=0, le=1, description="share of the codebook one dead-code check may reset")
    reset_until: float = Field(0.5, ge=0, le=1, description="share of training after which no code is reset")


class KeyframeParams(MethodParams):
    stride: int = Field(4, ge=1, description="keep every stride-th frame; the others interpolated linearly")
    value_bits: int = Field(32, ge=2, le=32, description="bits per kept coordinate: 32 keeps float32, fewer "
                            "quantise each axis uniformly over the training clips' range")
    view: Literal["3d", "2d"] = Field("3d", description="2d: the depth coordinate is lost and set to the train mean")


class RecordedParams(MethodParams):
    tiny = {"name": "noise_10mm"}
    name: str = Field(..., min_length=1, description="the generated set's file name in the folder, without .npz")
