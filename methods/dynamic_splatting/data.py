"""The generated scenes: a dataset names a scene kind and its sizes; each seed of a suite generates its own scene
(shapes, colours, motion) and its own motion prior, so seeds are independent samples of the kind."""
from __future__ import annotations

from harness import DataError
from harness.loader_arguments import whole_number
from methods.dynamic_splatting.scenes import KINDS, SceneSpec


def generated(kind: str, frames: int = 8, image_size: int = 48, gaussians_per_blob: int = 60,
              arc_degrees: float = 20.0, extreme_azimuths: list[float] | None = None) -> SceneSpec:
    """Scenes of `kind` (rigid, articulated): `frames` frames seen by one camera each on an arc of
    `arc_degrees`, `image_size`-pixel views, and held-out views from `extreme_azimuths` (default 90 and 180)."""
    if kind not in KINDS:
        raise DataError(f"no scene kind {kind!r}; choose one of {', '.join(KINDS)}", field="args.kind")
    if image_size % 8:
        raise DataError(f"image_size must be a multiple of 8 (the splatter's tile), got {image_size}",
                        field="args.image_size")
    azimuths = tuple(float(a) for a in (extreme_azimuths or (90.0, 180.0)))
    return SceneSpec(kind, whole_number(frames, "args.frames"),
                     whole_number(image_size, "args.image_size"),
                     whole_number(gaussians_per_blob, "args.gaussians_per_blob"), float(arc_degrees), azimuths)
