"""Bring your own renders: test views rendered by your method, scored with DyCheck's masked PSNR / SSIM.

Layout (a folder, DyCheck's iPhone layout flattened to one resolution):

    <path>/rgb/<name>.png            ground-truth test views (RGB or RGBA: alpha is dropped), 8 or 16 bit
    <path>/covisible/<name>.png      co-visibility masks, white where a pixel counts (optional: all pixels)
    <path>/renders/<run>/<name>.png  your renders of the same views (.png, or .npy float in [0, 1], H x W x 3)

Every `<name>` under rgb/ must have a render of the same size; every mistake is a `DataError` naming the file.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError


@dataclass(frozen=True)
class RenderSet:
    """A folder's test views, masks and the renders of each of its runs, by view name."""

    path: Path
    names: tuple[str, ...]
    targets: np.ndarray                   # (V, H, W, 3) in [0, 1]
    masks: np.ndarray                     # (V, H, W) bool
    renders: dict[str, np.ndarray]        # run -> (V, H, W, 3)


def read_image(path: Path) -> np.ndarray:
    """An (H, W, 3) float image in [0, 1] from a PNG (8 or 16 bit, grey, RGB or RGBA) or an .npy array."""
    if path.suffix == ".npy":
        try:
            image = np.load(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot be read as a NumPy array: {exc}", file=path) from None
        if image.ndim != 3 or image.shape[-1] != 3 or not np.isfinite(image).all():
            raise DataError(f"an .npy render is a finite H x W x 3 array, got shape {image.shape}", file=path)
        return np.clip(image.astype(np.float64), 0.0, 1.0)
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as opened:
            image = np.asarray(opened)
    except (OSError, UnidentifiedImageError) as exc:
        raise DataError(f"cannot be read as an image: {exc}", file=path) from None
    scale = 65535.0 if image.dtype == np.uint16 else 255.0
    image = image.astype(np.float64) / scale
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=-1)
    return image[..., :3]


def _mask(path: Path, shape: tuple[int, ...]) -> np.ndarray:
    if not path.exists():
        return np.ones(shape[:2], dtype=bool)
    mask = read_image(path).mean(axis=-1) > 0.5
    if mask.shape != shape[:2]:
        raise DataError(f"the mask is {mask.shape[1]} x {mask.shape[0]}, its view {shape[1]} x {shape[0]}", file=path)
    return mask


def load_renders(path: str | Path) -> RenderSet:
    """The folder `path` in the layout above."""
    root = Path(path)
    views = sorted((root / "rgb").glob("*.png"))
    if not views:
        raise DataError("no ground-truth views: expected rgb/<name>.png", file=root / "rgb")
    runs = sorted(p for p in (root / "renders").glob("*") if p.is_dir())
    if not runs:
        raise DataError("no renders: expected renders/<run>/<name>.png (or .npy)", file=root / "renders")
    names = tuple(v.stem for v in views)
    targets = [read_image(v) for v in views]
    masks = [_mask(root / "covisible" / f"{n}.png", t.shape) for n, t in zip(names, targets, strict=True)]
    renders = {}
    for run in runs:
        images = []
        for name, target in zip(names, targets, strict=True):
            found = [run / f"{name}{suffix}" for suffix in (".png", ".npy") if (run / f"{name}{suffix}").exists()]
            if not found:
                raise DataError(f"run '{run.name}' has no render of view '{name}'", file=run / f"{name}.png")
            image = read_image(found[0])
            if image.shape != target.shape:
                raise DataError(f"the render is {image.shape[1]} x {image.shape[0]}, the view "
                                f"{target.shape[1]} x {target.shape[0]}", file=found[0])
            images.append(image)
        renders[run.name] = np.stack(images)
    return RenderSet(root, names, np.stack(targets), np.stack(masks), renders)
