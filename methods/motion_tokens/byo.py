"""Your own joint-position arrays (SMPL-style): `.npy` of shape (frames, joints, 3) or (clips, frames, joints, 3),
or `.npz` holding such an array under `key` (default `joints`) and optionally the joint tree under `parents`.
Long sequences are cut into clips of `clip_frames` frames. Errors name the file and the field."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import DataError
from methods.motion_tokens.data import MotionSet
from methods.motion_tokens.gaits import FPS
from methods.motion_tokens.skeleton import PARENTS, check_parents


def _read(path: Path, key: str) -> tuple[np.ndarray, np.ndarray | None]:
    if not path.is_file():
        raise DataError("no such file", file=path, hint="Paths are relative to the data root ($HARNESS_DATA_ROOT).")
    if path.suffix == ".npy":
        return np.load(path, allow_pickle=False), None
    if path.suffix != ".npz":
        raise DataError(f"expected a .npy or .npz file, got {path.suffix!r}", file=path)
    with np.load(path, allow_pickle=False) as archive:
        if key not in archive:
            raise DataError(f"no array {key!r}; the archive holds {', '.join(archive.files) or 'nothing'}", file=path,
                            field=key, hint="Name the joint array with the loader's `key` argument.")
        return archive[key], archive["parents"] if "parents" in archive else None


def load_joint_arrays(path: str | Path, skeleton: str | None = None, key: str = "joints", clip_frames: int = 64,
                      units: float = 1.0, fps: float = FPS) -> MotionSet:
    """Clips from a user's joint positions. The joint tree comes from the archive's `parents` or `skeleton`
    (h36m17, smpl22 or smpl24); `units` converts to metres (0.001 for millimetres)."""
    path = Path(path)
    joints, stored_parents = _read(path, key)
    if joints.ndim == 3:
        joints = joints[None]
    if joints.ndim != 4 or joints.shape[-1] != 3:
        raise DataError(f"expected shape (frames, joints, 3) or (clips, frames, joints, 3), got {joints.shape}",
                        file=path, field=key)
    if not np.issubdtype(joints.dtype, np.number) or not np.isfinite(joints).all():
        raise DataError("joint positions must be finite numbers", file=path, field=key)
    if clip_frames < 8 or clip_frames % 4:
        raise DataError(f"clip_frames must be >= 8 and divisible by 4, got {clip_frames}", field="clip_frames")
    if stored_parents is not None:
        parents = tuple(int(p) for p in np.asarray(stored_parents).ravel())
        source = "parents"
    elif skeleton in PARENTS:
        parents, source = PARENTS[skeleton], "skeleton"
    else:
        raise DataError(f"no joint tree: store `parents` in the archive or name skeleton (one of {', '.join(PARENTS)})",
                        file=path, field="skeleton")
    problem = check_parents(parents, joints.shape[2])
    if problem is not None:
        raise DataError(f"not a joint tree for this array: {problem}", file=path, field=source)
    usable = joints.shape[1] // clip_frames
    clips = joints[:, : usable * clip_frames].reshape(-1, clip_frames, joints.shape[2], 3)
    if len(clips) < 2:
        raise DataError(f"{joints.shape[1]} frames per sequence make {len(clips)} clip(s) of {clip_frames}; need 2",
                        file=path, field="clip_frames", hint="Lower clip_frames or bring more frames.")
    return MotionSet(path.stem, clips.astype(np.float64) * units, parents, ("",) * len(clips), fps)
