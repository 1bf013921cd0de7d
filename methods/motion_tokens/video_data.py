"""Videos to score: a folder of `.npz` files, `real.npz` for the ground truth and one `<name>.npz` per generated
set, each with `frames` (n, H, W) or (n, H, W, 3) uint8 and/or `features` (n, d) extracted elsewhere (Inception
for FID, per-video features for FID-VID, I3D for FVD). Generated frames pair with the real ones by order.

The project's own example (`example`) is such a folder, made by methods.motion_tokens.video_example and shipped
with the package: stick-figure renders of generated motion, and of the same motion with joint noise."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError

EXAMPLE = Path(__file__).resolve().parent / "example_video"
REAL = "real"


@dataclass(frozen=True)
class VideoClip:
    """Frames (uint8) and/or features (float64) of one video set; either may be None."""

    frames: np.ndarray | None
    features: np.ndarray | None


@dataclass(frozen=True)
class VideoSet:
    name: str
    real: VideoClip
    generated: dict[str, VideoClip]


def read_video_clip(path: Path) -> VideoClip:
    """One `.npz` with `frames` and/or `features`, checked; errors name the file and the field."""
    with np.load(path, allow_pickle=False) as archive:
        frames = archive["frames"] if "frames" in archive else None
        features = archive["features"] if "features" in archive else None
    if frames is None and features is None:
        raise DataError("holds neither `frames` nor `features`", file=path, field="frames")
    if frames is not None and (frames.dtype != np.uint8 or frames.ndim not in (3, 4)
                               or (frames.ndim == 4 and frames.shape[-1] != 3)):
        raise DataError(f"frames must be uint8 (n, H, W) or (n, H, W, 3), got {frames.dtype} {frames.shape}",
                        file=path, field="frames")
    if features is not None:
        if features.ndim != 2 or len(features) < 2 or not np.isfinite(features).all():
            raise DataError(f"features must be finite (n >= 2, d), got shape {features.shape}", file=path,
                            field="features")
        features = features.astype(np.float64)
    return VideoClip(frames, features)


def video_files(path: str | Path) -> VideoSet:
    """The folder's `real.npz` and every other `.npz` as a generated set named after its file."""
    folder = Path(path)
    if not (folder / f"{REAL}.npz").is_file():
        raise DataError(f"no {REAL}.npz with the ground-truth frames or features", file=folder,
                        hint="Paths are relative to the data root ($HARNESS_DATA_ROOT).")
    real = read_video_clip(folder / f"{REAL}.npz")
    generated = {file.stem: read_video_clip(file) for file in sorted(folder.glob("*.npz")) if file.stem != REAL}
    for name, clip in generated.items():
        file = folder / f"{name}.npz"
        if clip.frames is not None and (real.frames is None or clip.frames.shape != real.frames.shape):
            raise DataError(f"frames {clip.frames.shape} do not pair with real.npz's "
                            f"{None if real.frames is None else real.frames.shape}", file=file, field="frames")
        if clip.features is not None and (real.features is None or clip.features.shape[1] != real.features.shape[1]):
            raise DataError("features need real.npz features of the same dimension", file=file, field="features")
    return VideoSet(folder.name, real, generated)


def example() -> VideoSet:
    """The shipped example (methods/motion_tokens/example_video)."""
    return video_files(EXAMPLE)
