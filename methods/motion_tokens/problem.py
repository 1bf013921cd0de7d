"""What a motion tokenizer sees and returns (the `motion_tokens.reconstruction` contract's types)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

# Test inputs: the clips themselves, the clips with Gaussian noise on every coordinate (scored against the clean
# clips: robustness to noise), and the clips on bodies with other bone lengths (scored against themselves).
VARIANTS = ("clean", "noisy", "retargeted")


@dataclass(frozen=True)
class MotionInputs:
    """Training clips and the test clips of each variant, (clips, frames, joints, 3) in metres, y up."""

    train: np.ndarray
    test: Mapping[str, np.ndarray]
    parents: tuple[int, ...]
    fps: float


@dataclass(frozen=True)
class MotionTruth:
    """The clean and retargeted test clips, what the reconstructions are scored against."""

    clean: np.ndarray
    retargeted: np.ndarray
    parents: tuple[int, ...]

    def target(self, variant: str) -> np.ndarray:
        return self.retargeted if variant == "retargeted" else self.clean


@dataclass(frozen=True)
class Reconstruction:
    """A tokenizer's decoded test clips per variant (each shaped like its input) and, for a quantising one,
    the token ids of the clean test clips (clips, tokens per clip) with its codebook size, and the size of one
    clip's code in bits (None: unknown; counted from the tokens where there are some)."""

    decoded: Mapping[str, np.ndarray]
    tokens: np.ndarray | None = None
    codebook_size: int = 0
    bits_per_clip: float | None = None
