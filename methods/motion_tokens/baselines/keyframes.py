"""Keyframes: every stride-th frame kept and the rest linearly interpolated, no learning: the compression a
tokenizer with temporal downsampling by the same factor must beat. With view 2d the depth is also dropped and
replaced by the training clips' mean depth of each joint relative to the root."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.motion_tokens.params import KeyframeParams
from methods.motion_tokens.problem import MotionInputs, Reconstruction

DEPTH = 2


def interpolate_keyframes(clips: np.ndarray, stride: int) -> np.ndarray:
    """Clips (clips, frames, joints, 3) rebuilt from frames 0, stride, 2 stride, ... and the last frame."""
    frames = clips.shape[1]
    kept = np.unique(np.append(np.arange(0, frames, stride), frames - 1))
    weights = np.stack([np.interp(np.arange(frames), kept, np.eye(len(kept))[k]) for k in range(len(kept))])
    return np.einsum("kf,ckjd->cfjd", weights, clips[:, kept])


class Keyframes(Method[KeyframeParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> Reconstruction:
        decoded = {variant: interpolate_keyframes(clips, self.params.stride) for variant, clips in inputs.test.items()}
        if self.params.view == "2d":
            relative_depth = (inputs.train[..., DEPTH] - inputs.train[..., :1, DEPTH]).mean(axis=(0, 1))
            for variant, clips in decoded.items():
                clips[..., DEPTH] = inputs.test[variant][:, :1, :1, DEPTH] + relative_depth
        return Reconstruction(decoded)
