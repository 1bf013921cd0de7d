"""One seed's observation of a generated scene: the training views, which Gaussian each frame sees, the monocular
motion prior a method starts from, and the held-out extreme views with their co-visibility masks (the truth)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from methods.dynamic_splatting.cameras import Camera
from methods.dynamic_splatting.scenes import DynamicScene
from methods.dynamic_splatting.views import (VISIBLE_MASS, Appearance, covisibility_masks, extreme_cameras,
                                             region_labels, seen_mass, training_cameras)

DEPTH_NOISE = 0.12    # std of the prior's per-object, per-frame depth offset (world units)
JITTER = 0.03         # std of its per-Gaussian, per-frame noise, every axis


@dataclass(frozen=True)
class ExtremeView:
    azimuth: float
    cameras: list[Camera]
    images: np.ndarray  # (T, H, W, 3) ground truth
    masks: np.ndarray   # (T, H, W) bool co-visibility
    regions: np.ndarray  # (T, H, W) int: object segment, STATIC or BACKGROUND (views.region_labels)
    unseen: np.ndarray   # (T, H, W) bool: footprints of Gaussians no training view saw


@dataclass(frozen=True)
class Observation:
    scene: DynamicScene
    train_cameras: list[Camera]
    train_images: np.ndarray  # (T, H, W, 3)
    seen: np.ndarray          # (T, N) bool: the training view of frame t sees Gaussian i
    prior: np.ndarray         # (T, N, 3)
    extreme: tuple[ExtremeView, ...]


def motion_prior(scene: DynamicScene, seen: np.ndarray, cameras: list[Camera], rng: np.random.Generator) -> np.ndarray:
    """What a monocular pipeline hands over: frame 0 exact (the canonical model); later frames the true position
    where the frame's view sees the Gaussian, else the last seen one (a lost track holds still), plus a depth
    offset per object and frame along that camera's axis and a small per-Gaussian jitter."""
    frames, count, _ = scene.positions.shape
    prior = scene.positions.copy()
    held = scene.positions[0].copy()
    for t in range(1, frames):
        held = np.where(seen[t][:, None], scene.positions[t], held)
        depth_axis = cameras[t].rotation().numpy()[:, 2]
        per_object = rng.normal(0.0, DEPTH_NOISE, scene.objects.max() + 1)
        offset = np.where(scene.moving, per_object[scene.objects], 0.0)
        prior[t] = held + offset[:, None] * depth_axis + rng.normal(0.0, JITTER, (count, 3)) * scene.moving[:, None]
    return prior


def observe(scene: DynamicScene, seed: int) -> Observation:
    """Render the training views and extreme views of `scene`, and draw the seed's motion prior."""
    appearance = Appearance.of(scene)
    positions = torch.as_tensor(scene.positions)
    cameras = training_cameras(scene.spec)
    train = appearance.render(positions, cameras)
    count = positions.shape[1]
    seen = (seen_mass(train, count) > VISIBLE_MASS).numpy()
    ever_seen = torch.as_tensor(seen.any(axis=0))
    extreme = []
    for azimuth in scene.spec.extreme_azimuths:
        views = extreme_cameras(scene.spec, azimuth)
        images = appearance.render(positions, views).image.numpy()
        masks = covisibility_masks(appearance, positions, views, ever_seen).numpy()
        regions, unseen = region_labels(appearance, positions, views, torch.as_tensor(scene.objects), ever_seen)
        extreme.append(ExtremeView(azimuth, views, images, masks, regions.numpy(), unseen.numpy()))
    prior = motion_prior(scene, seen, cameras, np.random.default_rng([seed, 7]))
    return Observation(scene, cameras, train.image.numpy(), seen, prior, tuple(extreme))
