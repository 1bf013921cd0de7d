"""Small nuScenes-format datasets for tests and the CPU suites: all 13 tables and a map PNG.

Each scene is a drive of `keyframes` keyframes (2 Hz) on a smooth path: straight, a turn,
straight, a turn (left or right at random), with a slowly varying speed. Around the ego: a
lead car following the same path about 11 m ahead, cars parked beside the path, pedestrians
walking on the kerb. Only LIDAR_TOP keyframes are written (no sensor files); the LiDAR is
mounted as in nuScenes (0.94 m ahead of the rear axle, x right, y forward). Tokens are
hashes of (seed, table, index), so the same arguments write byte-identical tables.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

KEYFRAME_US = 500_000
LIDAR_TRANSLATION = [0.943, 0.0, 1.84]
LIDAR_ROTATION = [math.cos(-math.pi / 4), 0.0, 0.0, math.sin(-math.pi / 4)]  # yaw -90 deg: x right, y forward
CATEGORIES = {"vehicle.car": "Vehicle designed primarily for personal use.",
              "human.pedestrian.adult": "Adult subcategory."}
ATTRIBUTES = {"vehicle.moving": "Vehicle is moving.", "vehicle.parked": "Vehicle is stationary, no driver.",
              "pedestrian.moving": "The human is moving."}
CAR_SIZE = [1.9, 4.5, 1.6]      # nuScenes wlh
PEDESTRIAN_SIZE = [0.7, 0.7, 1.75]
VISIBLE_M = 60.0
_DT = 0.05


@dataclass(frozen=True)
class SceneSpec:
    """The arguments of one generated dataset."""

    num_scenes: int = 4
    keyframes: int = 40
    seed: int = 0
    parked_cars: int = 6
    pedestrians: int = 2
    lead_gap_m: float = 11.0
    version: str = "v1.0-mini"


def token(seed: int, table: str, *index: object) -> str:
    return hashlib.sha256(f"{seed}:{table}:{':'.join(map(str, index))}".encode()).hexdigest()[:32]


def yaw_quaternion(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


def _ego_path(rng: np.random.Generator, seconds: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Time grid, arc length, positions (T, 2) and yaw (T,) of a straight-turn-straight-turn drive."""
    t = np.arange(0.0, seconds + _DT, _DT)
    speed = rng.uniform(5.0, 8.0) + 1.0 * np.sin(2 * np.pi * t / rng.uniform(9.0, 14.0) + rng.uniform(0, 2 * np.pi))
    yaw_rate = np.zeros_like(t)
    for start, duration in ((rng.uniform(5.5, 6.5), rng.uniform(3.5, 4.5)), (rng.uniform(14.5, 15.5), 4.0)):
        rate = rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 0.4)
        ramp = np.clip((t - start) / 0.5, 0, 1) * np.clip((start + duration - t) / 0.5, 0, 1)
        yaw_rate += rate * ramp
    yaw = rng.uniform(-np.pi, np.pi) + np.cumsum(yaw_rate) * _DT
    velocity = speed[:, None] * np.stack([np.cos(yaw), np.sin(yaw)], axis=1)
    xy = rng.uniform(300, 1500, 2) + np.cumsum(velocity, axis=0) * _DT
    arc = np.cumsum(speed) * _DT
    return t, arc, xy, yaw


def _along(arc: np.ndarray, xy: np.ndarray, yaw: np.ndarray, s: np.ndarray,
           offset: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions and headings at arc lengths `s`, `offset` metres to the left of the path."""
    x, y = np.interp(s, arc, xy[:, 0]), np.interp(s, arc, xy[:, 1])
    heading = np.interp(s, arc, np.unwrap(yaw))
    return np.stack([x - offset * np.sin(heading), y + offset * np.cos(heading)], axis=1), heading


def _scene_agents(rng: np.random.Generator, spec: SceneSpec, arc, xy, yaw, t_key, s_key):  # noqa: ANN001, ANN202
    """(category, attribute, size, positions (F, 2), headings (F,)) for each agent of a scene."""
    agents = []
    gap = spec.lead_gap_m + 1.0 * np.sin(2 * np.pi * t_key / 7.0)
    position, heading = _along(arc, xy, yaw, s_key + gap, 0.0)
    agents.append(("vehicle.car", "vehicle.moving", CAR_SIZE, position, heading))
    for _ in range(spec.parked_cars):
        s = rng.uniform(s_key[0] + 15.0, s_key[-1] + 20.0)
        side = rng.choice([-1.0, 1.0]) * rng.uniform(3.2, 4.0)
        position, heading = _along(arc, xy, yaw, np.array([s]), side)
        agents.append(("vehicle.car", "vehicle.parked", CAR_SIZE, np.repeat(position, t_key.size, 0),
                       np.repeat(heading, t_key.size)))
    for _ in range(spec.pedestrians):
        s0, side = rng.uniform(s_key[0], s_key[-1]), rng.choice([-1.0, 1.0]) * 5.5
        position, heading = _along(arc, xy, yaw, s0 + rng.choice([-1.2, 1.2]) * t_key, side)
        agents.append(("human.pedestrian.adult", "pedestrian.moving", PEDESTRIAN_SIZE, position, heading))
    return agents


def write_dataset(root: Path, spec: SceneSpec) -> Path:
    """Write the dataset under `root` (the dataroot); returns `root`."""
    seed = spec.seed
    rng = np.random.default_rng(seed)
    tables: dict[str, list[dict]] = {name: [] for name in (
        "category", "attribute", "visibility", "instance", "sensor", "calibrated_sensor", "ego_pose", "log",
        "scene", "sample", "sample_data", "sample_annotation", "map")}
    category_token = {name: token(seed, "category", name) for name in CATEGORIES}
    attribute_token = {name: token(seed, "attribute", name) for name in ATTRIBUTES}
    tables["category"] = [{"token": category_token[n], "name": n, "description": d, "index": i}
                          for i, (n, d) in enumerate(CATEGORIES.items())]
    tables["attribute"] = [{"token": attribute_token[n], "name": n, "description": d} for n, d in ATTRIBUTES.items()]
    tables["visibility"] = [
        {"token": str(i + 1), "level": level, "description": f"visibility of whole object is {level}"}
        for i, level in enumerate(("v0-40", "v40-60", "v60-80", "v80-100"))]
    sensor = token(seed, "sensor", "LIDAR_TOP")
    tables["sensor"] = [{"token": sensor, "channel": "LIDAR_TOP", "modality": "lidar"}]
    log = token(seed, "log", 0)
    tables["log"] = [{"token": log, "logfile": f"generated-seed{seed}", "vehicle": "generated",
                      "date_captured": "2018-08-01", "location": "singapore-onenorth"}]
    map_token = token(seed, "map", 0)
    tables["map"] = [{"token": map_token, "log_tokens": [log], "category": "semantic_prior",
                      "filename": f"maps/{map_token}.png"}]
    for scene_index in range(spec.num_scenes):
        _write_scene(tables, spec, rng, scene_index, sensor, log, category_token, attribute_token)
    version_dir = root / spec.version
    version_dir.mkdir(parents=True, exist_ok=True)
    for name, records in tables.items():
        (version_dir / f"{name}.json").write_text(json.dumps(records, indent=0), encoding="utf-8")
    _write_map_png(root / "maps" / f"{map_token}.png")
    return root


def _write_scene(tables, spec, rng, scene_index, sensor, log, category_token, attribute_token) -> None:  # noqa: ANN001
    seed = spec.seed
    frames = spec.keyframes
    t, arc, xy, yaw = _ego_path(rng, (frames - 1) * 0.5 + 15.0)
    t_key = np.arange(frames) * 0.5
    key = np.rint(t_key / _DT).astype(int)
    s_key = arc[key]
    start_us = 1_533_000_000_000_000 + scene_index * 60_000_000
    scene = token(seed, "scene", scene_index)
    calibrated = token(seed, "calibrated_sensor", scene_index)
    tables["calibrated_sensor"].append({"token": calibrated, "sensor_token": sensor, "translation": LIDAR_TRANSLATION,
                                        "rotation": LIDAR_ROTATION, "camera_intrinsic": []})
    samples = [token(seed, "sample", scene_index, f) for f in range(frames)]
    for f in range(frames):
        stamp = start_us + f * KEYFRAME_US
        pose = token(seed, "ego_pose", scene_index, f)
        tables["ego_pose"].append({"token": pose, "timestamp": stamp, "rotation": yaw_quaternion(float(yaw[key[f]])),
                                   "translation": [float(xy[key[f], 0]), float(xy[key[f], 1]), 0.0]})
        tables["sample"].append({"token": samples[f], "timestamp": stamp, "scene_token": scene,
                                 "prev": samples[f - 1] if f else "", "next": samples[f + 1] if f + 1 < frames else ""})
        data = token(seed, "sample_data", scene_index, f)
        tables["sample_data"].append({
            "token": data, "sample_token": samples[f], "ego_pose_token": pose, "calibrated_sensor_token": calibrated,
            "timestamp": stamp, "fileformat": "pcd", "is_key_frame": True, "height": 0, "width": 0,
            "filename": f"samples/LIDAR_TOP/generated__LIDAR_TOP__{stamp}.pcd.bin",
            "prev": token(seed, "sample_data", scene_index, f - 1) if f else "",
            "next": token(seed, "sample_data", scene_index, f + 1) if f + 1 < frames else ""})
    tables["scene"].append({"token": scene, "log_token": log, "nbr_samples": frames, "first_sample_token": samples[0],
                            "last_sample_token": samples[-1], "name": f"scene-{scene_index + 1:04d}",
                            "description": "generated: straight, turn, straight, turn"})
    ego_xy = xy[key]
    for a, (category, attribute, size, position, heading) in enumerate(
            _scene_agents(rng, spec, arc, xy, yaw, t_key, s_key)):
        instance = token(seed, "instance", scene_index, a)
        anns = [token(seed, "sample_annotation", scene_index, a, f) for f in range(frames)]
        for f in range(frames):
            visible = float(np.hypot(*(position[f] - ego_xy[f]))) < VISIBLE_M
            tables["sample_annotation"].append({
                "token": anns[f], "sample_token": samples[f], "instance_token": instance, "visibility_token": "4",
                "attribute_tokens": [attribute_token[attribute]],
                "translation": [float(position[f, 0]), float(position[f, 1]), size[2] / 2],
                "size": list(size), "rotation": yaw_quaternion(float(heading[f])),
                "prev": anns[f - 1] if f else "", "next": anns[f + 1] if f + 1 < frames else "",
                "num_lidar_pts": 40 if visible else 0, "num_radar_pts": 0})
        tables["instance"].append({"token": instance, "category_token": category_token[category],
                                   "nbr_annotations": frames, "first_annotation_token": anns[0],
                                   "last_annotation_token": anns[-1]})


def _write_map_png(path: Path) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("L", (64, 64), color=255).save(path)
