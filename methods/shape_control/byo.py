"""Bring your own: your controls (superquadric parameters) and the shapes your generator made from them, one JSON
object per line of a JSONL file:

    {"id": "chair-01", "parts": [{"scale": [0.6, 0.6, 0.08], "exponents": [0.1, 0.1], "center": [0, 0, -0.1],
     "yaw": 0.0}, ...], "shape": "meshes/chair-01.ply"}

`parts`: the control's superquadrics (`scale` a1..a3 > 0, `exponents` e1, e2 in (0, 4], optional `center` and
`yaw` in radians), in the frame of the shape: [-1, 1]^3, z up. `shape` (optional: without it only the controls
are used): a mesh (.ply, .obj, .stl, .off: sampled by area) or a point cloud (.ply without faces, or .npy of
shape (N, 3)), relative to the file's folder. A watertight mesh is also voxelised (voxel IoU, Fréchet distance
and the nearest-training-shape distance need voxels); a point cloud or an open mesh gets NaN for those.
Blank lines are skipped; every mistake is a `DataError` naming the file and the line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness import DataError
from harness.json_lines import json_object
from methods.shape_control.superquadric import Superquadric, voxel_centres
from methods.shape_control.surface import POINTS, sample_mesh, winding_numbers

_KEYS = {"id", "parts", "shape"}
_PART_KEYS = {"scale", "exponents", "center", "yaw"}
MESH_SUFFIXES = (".ply", ".obj", ".stl", ".off", ".npy")


@dataclass(frozen=True)
class RecordedShape:
    """A user's generated shape: surface points, and voxels when it is a watertight mesh."""

    points: np.ndarray
    grid: np.ndarray | None


@dataclass(frozen=True)
class ControlRecord:
    id: str
    parts: tuple[Superquadric, ...]
    shape: RecordedShape | None


def read_controls(path: Path, resolution: int) -> list[ControlRecord]:
    """Every control (and generated shape) in `path`, in file order."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot be read: {exc}", file=path) from None
    records: list[ControlRecord] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = json_object(line, path, number, _KEYS)
        name = record.get("id")
        if not isinstance(name, str) or not name:
            raise DataError("no control 'id' (a non-empty string)", file=path, line=number, field="id")
        if name in seen:
            raise DataError(f"control '{name}' appears twice", file=path, line=number, field="id")
        seen.add(name)
        parts = record.get("parts")
        if not isinstance(parts, list) or not parts:
            raise DataError("'parts' must be a non-empty list of superquadrics", file=path, line=number,
                            field="parts")
        primitives = tuple(_part(part, path, number, f"parts[{i}]") for i, part in enumerate(parts))
        shape = None if record.get("shape") is None else _shape(record["shape"], name, resolution, path, number)
        records.append(ControlRecord(name, primitives, shape))
    if not records:
        raise DataError("holds no controls", file=path)
    return records


def _numbers(value: Any, size: int, path: Path, number: int, field: str, positive: bool = False) -> list[float]:
    if (not isinstance(value, list) or len(value) != size
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        raise DataError(f"{field.rsplit('.', 1)[-1]} must be a list of {size} finite numbers, got {value!r}",
                        file=path, line=number, field=field)
    if positive and min(value) <= 0:
        raise DataError(f"{field.rsplit('.', 1)[-1]} must be positive, got {value!r}", file=path, line=number,
                        field=field)
    return [float(v) for v in value]


def _part(part: Any, path: Path, number: int, field: str) -> Superquadric:
    if not isinstance(part, dict):
        raise DataError("a part is a JSON object", file=path, line=number, field=field)
    unknown = sorted(set(part) - _PART_KEYS)
    if unknown:
        raise DataError(f"unknown part key {unknown[0]!r}", file=path, line=number, field=f"{field}.{unknown[0]}",
                        hint=f"A part takes {', '.join(sorted(_PART_KEYS))}.")
    a1, a2, a3 = _numbers(part.get("scale"), 3, path, number, f"{field}.scale", positive=True)
    e1, e2 = _numbers(part.get("exponents"), 2, path, number, f"{field}.exponents", positive=True)
    if max(e1, e2) > 4:
        raise DataError(f"exponents must lie in (0, 4], got {[e1, e2]}", file=path, line=number,
                        field=f"{field}.exponents")
    x, y, z = _numbers(part.get("center", [0, 0, 0]), 3, path, number, f"{field}.center")
    yaw = _numbers([part.get("yaw", 0.0)], 1, path, number, f"{field}.yaw")[0]
    return Superquadric((a1, a2, a3), (e1, e2), (x, y, z), yaw)


def _shape(name: Any, key: str, resolution: int, path: Path, number: int) -> RecordedShape:
    if not isinstance(name, str) or not name.lower().endswith(MESH_SUFFIXES):
        raise DataError(f"'shape' must name a {', '.join(MESH_SUFFIXES)} file, got {name!r}", file=path,
                        line=number, field="shape")
    file = path.parent / name
    if not file.is_file():
        raise DataError(f"shape file '{name}' not found (expected {file})", file=path, line=number, field="shape")
    try:
        return _read_shape(file, key, resolution)
    except (ValueError, OSError) as exc:
        raise DataError(f"shape file '{name}' cannot be read: {exc}", file=path, line=number, field="shape") from None


def _read_shape(file: Path, key: str, resolution: int) -> RecordedShape:
    """Points of a mesh (sampled by area) or a cloud; voxels of a watertight mesh (voxel centres inside it)."""
    import trimesh

    if file.suffix.lower() == ".npy":
        points = np.load(file, allow_pickle=False)
        if points.ndim != 2 or points.shape[1] != 3 or len(points) == 0 or not np.isfinite(points).all():
            raise ValueError(f"a point cloud is a finite (N, 3) array, got shape {points.shape}")
        return RecordedShape(points.astype(np.float64), None)
    loaded = trimesh.load(file, force="mesh" if file.suffix.lower() != ".ply" else None, process=False)
    if isinstance(loaded, trimesh.Trimesh) and len(loaded.faces):
        grid = ((np.abs(winding_numbers(loaded.vertices, loaded.faces, voxel_centres(resolution))) > 0.5)
                .reshape((resolution,) * 3) if loaded.is_watertight else None)
        return RecordedShape(sample_mesh(loaded, POINTS, key), grid)
    vertices = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=np.float64)
    if len(vertices) == 0:
        raise ValueError("no faces and no points")
    return RecordedShape(vertices, None)
