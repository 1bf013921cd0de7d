"""Generated motion sets: clips of the procedural motions (methods.motion_tokens.gaits) on a skeleton, each
clip on a body whose bones are scaled by its own random factor (people differ), so retargeting at test time
asks for more than the training bodies showed only when its range is wider."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness import DataError
from methods.motion_tokens.gaits import FPS, MOTIONS, motion_clip
from methods.motion_tokens.skeleton import SKELETONS


@dataclass(frozen=True)
class MotionSet:
    """Clips of joint positions (clips, frames, joints, 3) in metres, y up, with the joint tree."""

    name: str
    clips: np.ndarray
    parents: tuple[int, ...]
    labels: tuple[str, ...]  # each clip's motion ('' when unknown)
    fps: float = FPS


def _choice(value: str, allowed: Sequence[str], field: str) -> str:
    if value not in allowed:
        raise DataError(f"unknown {field} {value!r}; choose one of {', '.join(allowed)}", field=field)
    return value


def generated(skeleton: str = "h36m17", motions: Sequence[str] = MOTIONS, clips: int = 160, frames: int = 32,
              body_variation: float = 0.1, seed: int = 0) -> MotionSet:
    """`clips` clips of `frames` frames (30 fps), the motions taken in turn; each body's bones scaled by one
    factor drawn from 1 +- `body_variation` (uniform)."""
    chosen = SKELETONS[_choice(skeleton, tuple(SKELETONS), "skeleton")]
    kinds = [_choice(motion, MOTIONS, "motions") for motion in motions]
    if not kinds or clips < 2 or frames < 8 or frames % 4:
        raise DataError(f"need motions, clips >= 2 and frames >= 8 divisible by 4, got {len(kinds)} motions, {clips} "
                        f"clips and {frames} frames", field="frames")
    if not 0 <= body_variation < 1:
        raise DataError(f"body_variation must be in [0, 1), got {body_variation}", field="body_variation")
    rng = np.random.default_rng(seed)
    labels = tuple(kinds[i % len(kinds)] for i in range(clips))
    data = np.stack([motion_clip(chosen, label, frames, rng,
                                 np.full(chosen.num_joints, rng.uniform(1 - body_variation, 1 + body_variation)))
                     for label in labels])
    name = f"{chosen.name}-{'+'.join(kinds)}"
    return MotionSet(name, data, chosen.parents, labels)
