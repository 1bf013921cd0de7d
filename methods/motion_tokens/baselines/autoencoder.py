"""4DMoT's network without the quantiser: the continuous latent's reconstruction, the floor a codebook can
approach from above."""
from __future__ import annotations

from harness import Method, RunContext
from methods.motion_tokens.params import NetworkParams
from methods.motion_tokens.problem import MotionInputs, Reconstruction
from methods.motion_tokens.training import train_and_reconstruct


class ContinuousAutoencoder(Method[NetworkParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> Reconstruction:
        return train_and_reconstruct(inputs, self.params, ctx)
