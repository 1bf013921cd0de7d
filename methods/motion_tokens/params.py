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
    width: int = Field(32, ge=4, description="channels of the residual blocks")
    latent_dim: int = Field(32, ge=2, description="dimension of a latent vector (and of a code)")
    downsample: Literal[1, 2, 4, 8] = Field(4, description="temporal average-pool factor: f/downsample x j latents")
    steps: int = Field(1200, ge=1, description="optimiser steps")
    batch: int = Field(4, ge=1, description="clips per step")
    lr: float = Field(2e-3, gt=0)


class VQParams(NetworkParams):
    """4DMoT's quantiser: nearest-code lookup, the codebook updated by EMA (else by its own loss term), codes
    unused over recent steps reset to random encoder outputs, loss L1 + beta * commitment."""

    tiny = {**NetworkParams.tiny, "codebook_size": 16}
    codebook_size: int = Field(512, ge=2)
    ema: bool = Field(True, description="update the codebook by exponential moving averages (else by gradient)")
    reset: bool = Field(True, description="reset dead codes to random encoder outputs of the batch")
    decay: float = Field(0.99, gt=0, lt=1, description="EMA decay of the code statistics")
    beta: float = Field(0.25, ge=0, description="weight of the commitment loss")


class KeyframeParams(MethodParams):
    stride: int = Field(4, ge=1, description="keep every stride-th frame; the others interpolated linearly")
    view: Literal["3d", "2d"] = Field("3d", description="2d: the depth coordinate is lost and set to the train mean")


class RecordedParams(MethodParams):
    tiny = {"name": "noise_10mm"}
    name: str = Field(..., min_length=1, description="the generated set's file name in the folder, without .npz")
