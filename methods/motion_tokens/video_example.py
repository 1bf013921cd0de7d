"""Writes the example video folder (methods.motion_tokens.video_data's format): stick-figure renders of generated
motion (`real`) and of the same motion with Gaussian joint noise of 10 mm and 40 mm, each with toy features. The
toy features are a fixed random projection of 8x8-pooled frames, a stand-in for Inception features that shows
the Fréchet distance's plumbing, not a perceptual measure. Usage: python -m methods.motion_tokens.video_example DIR
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from methods.motion_tokens.data import generated
from methods.motion_tokens.render import render_stick_figures

NOISE_MM = {"noise_10mm": 10.0, "noise_40mm": 40.0}
FEATURES = 16


def toy_features(frames: np.ndarray) -> np.ndarray:
    """(n, FEATURES): 8x8 mean-pooled intensities in per cent times a fixed Gaussian projection (seed 0)."""
    pooled = frames.reshape(len(frames), 8, frames.shape[1] // 8, 8, frames.shape[2] // 8).mean(axis=(2, 4)) / 2.55
    projection = np.random.default_rng(0).standard_normal((64, FEATURES))
    return pooled.reshape(len(frames), 64) @ projection


def write_example(folder: Path) -> None:
    motion = generated(clips=12, frames=32, seed=7)
    poses = motion.clips[:, ::4].reshape(-1, *motion.clips.shape[2:])  # 96 frames
    centre = poses[:, 0]
    rng = np.random.default_rng(7)
    folder.mkdir(parents=True, exist_ok=True)
    sets = {"real": poses} | {name: poses + rng.normal(0, mm / 1000, poses.shape) for name, mm in NOISE_MM.items()}
    for name, joints in sets.items():
        frames = render_stick_figures(joints, motion.parents, centre)
        np.savez_compressed(folder / f"{name}.npz", frames=frames, features=toy_features(frames))


if __name__ == "__main__":
    write_example(Path(sys.argv[1]))
