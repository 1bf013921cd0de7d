"""Keyframes: every stride-th frame kept and the rest linearly interpolated, no learning: the compression a
tokenizer must beat at the same bits. The kept coordinates are taken from the clip's mean root place on the floor
(two 16-bit values, the side information every tokenizer gets too) and, with `value_bits` below 32, quantised
uniformly to that many bits per value over each axis's range in the training clips (the range is part of the
codec, like a tokenizer's codebook). A clip's code: kept frames x joints x 3 values x value_bits, plus the origin.
With view 2d the depth is also dropped and replaced by the training clips' mean depth of each joint relative to
the root."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.motion_tokens.params import KeyframeParams
from methods.motion_tokens.problem import MotionInputs, Reconstruction
from methods.motion_tokens.training import ORIGIN_BITS, Normaliser

DEPTH = 2
FLOAT_BITS = 32


def kept_frames(frames: int, stride: int) -> np.ndarray:
    """Frames 0, stride, 2 stride, ... and the last frame."""
    return np.unique(np.append(np.arange(0, frames, stride), frames - 1))


def interpolate_keyframes(clips: np.ndarray, stride: int) -> np.ndarray:
    """Clips (clips, frames, joints, 3) rebuilt from their `kept_frames` by linear interpolation."""
    frames = clips.shape[1]
    kept = kept_frames(frames, stride)
    weights = np.stack([np.interp(np.arange(frames), kept, np.eye(len(kept))[k]) for k in range(len(kept))])
    return np.einsum("kf,ckjd->cfjd", weights, clips[:, kept])


def quantised(values: np.ndarray, low: np.ndarray, high: np.ndarray, bits: int) -> np.ndarray:
    """`values` (..., 3) rounded to the nearest of 2**bits levels spread evenly over [low, high] per axis
    (values outside clipped to the range)."""
    step = (high - low) / (2 ** bits - 1)
    return low + np.round((np.clip(values, low, high) - low) / step) * step


class Keyframes(Method[KeyframeParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> Reconstruction:
        stride, bits = self.params.stride, self.params.value_bits
        origin = Normaliser.origin
        relative_train = inputs.train - origin(inputs.train)
        low, high = relative_train.min(axis=(0, 1, 2)), relative_train.max(axis=(0, 1, 2))
        decoded = {}
        for variant, clips in inputs.test.items():
            relative = clips - origin(clips)
            if bits < FLOAT_BITS:
                relative = quantised(relative, low, high, bits)
            decoded[variant] = interpolate_keyframes(relative, stride) + origin(clips)
        if self.params.view == "2d":
            relative_depth = (inputs.train[..., DEPTH] - inputs.train[..., :1, DEPTH]).mean(axis=(0, 1))
            for variant, clips in decoded.items():
                clips[..., DEPTH] = inputs.test[variant][:, :1, :1, DEPTH] + relative_depth
        frames, joints = inputs.train.shape[1:3]
        values = len(kept_frames(frames, stride)) * joints * (2 if self.params.view == "2d" else 3)
        return Reconstruction(decoded, bits_per_clip=values * bits + ORIGIN_BITS)
