"""A 2D-pose tokenizer: 4DMoT's VQ-VAE fed the front camera's 2D pose (x, y) instead of the 3D joints, as the
pose-guided animation methods MTVCraft compares with (AnimateAnyone, MimicMotion: skeleton images) condition on 2D
poses. Its decoder still predicts 3D, so its MPJPE measures what the lost depth costs."""
from __future__ import annotations

from harness import Method, RunContext
from methods.motion_tokens.params import VQParams
from methods.motion_tokens.problem import MotionInputs, Reconstruction
from methods.motion_tokens.training import train_and_reconstruct


class Pose2DTokenizer(Method[VQParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> Reconstruction:
        return train_and_reconstruct(inputs, self.params, ctx, in_channels=2)
