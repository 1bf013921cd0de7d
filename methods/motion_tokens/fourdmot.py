"""4DMoT, MTVCraft's 4D motion tokenizer (Ding et al., "MTVCraft: Tokenizing 4D Motion for Arbitrary Character
Animation", arXiv 2505.10238; spec shared/papers/mtvcraft.md): a VQ-VAE over raw joint-coordinate sequences
M in R^{f x j x 3}, 2D-conv residual blocks over (frame, joint), temporal average pooling to f/4 x j latents, an
EMA codebook with dead-code reset, L = |M - M^|_1 + beta |E - sg[C]|^2. Inferred (the spec has none of them):
widths, depth, codebook size 512, beta 0.25, decay 0.99, the clips' normalisation (methods.motion_tokens.training).
The codebook-size, downsampling, EMA and reset variants are this method's parameters."""
from __future__ import annotations

from harness import Method, RunContext
from methods.motion_tokens.params import VQParams
from methods.motion_tokens.problem import MotionInputs, Reconstruction
from methods.motion_tokens.training import train_and_reconstruct


class FourDMoT(Method[VQParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> Reconstruction:
        return train_and_reconstruct(inputs, self.params, ctx)
