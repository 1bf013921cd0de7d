"""The toy animation: 64x64 grey stick figures (orthographic front view) of joint positions, so decoded motion can
be compared with the ground truth as video frames (PSNR, SSIM). Each bone is drawn as a Gaussian profile of its
distance to the pixel (width 0.8 px), so sub-pixel joint errors change the frame, as they would in a video."""
from __future__ import annotations

import numpy as np

SIZE = 64
VIEW_METRES = 2.4  # the frame spans 2.4 m: a 1.75 m figure with its arms raised fits
LINE_SIGMA_PX = 0.8
CHUNK = 32  # frames rendered at once


def render_stick_figures(positions: np.ndarray, parents: tuple[int, ...], centre: np.ndarray,
                         size: int = SIZE) -> np.ndarray:
    """Frames (n, size, size) uint8 of poses (n, joints, 3) seen from the front (x to the right, y up), each
    frame's camera over `centre` (n, 3): pass the ground truth's pelvis so decoded and true frames share it."""
    scale = size / VIEW_METRES
    points = np.stack([(positions[..., 0] - centre[:, None, 0]) * scale + size / 2,
                       size / 2 - (positions[..., 1] - centre[:, None, 1]) * scale], axis=-1)  # (n, joints, 2)
    children = [joint for joint, parent in enumerate(parents) if parent >= 0]
    start, end = points[:, [parents[j] for j in children]], points[:, children]  # (n, bones, 2)
    grid = np.stack(np.meshgrid(np.arange(size) + 0.5, np.arange(size) + 0.5), axis=-1).reshape(1, -1, 1, 2)
    frames = np.empty((len(points), size * size))
    for first in range(0, len(points), CHUNK):
        a, b = start[first:first + CHUNK, None], end[first:first + CHUNK, None]  # (chunk, 1, bones, 2)
        direction = b - a
        along = ((grid - a) * direction).sum(axis=-1) / np.maximum((direction ** 2).sum(axis=-1), 1e-12)
        nearest = a + np.clip(along, 0, 1)[..., None] * direction
        distance2 = ((grid - nearest) ** 2).sum(axis=-1)  # (chunk, pixels, bones)
        frames[first:first + CHUNK] = np.exp(-distance2.min(axis=-1) / (2 * LINE_SIGMA_PX ** 2))
    return np.round(frames.reshape(-1, size, size) * 255).astype(np.uint8)
