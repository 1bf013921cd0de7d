"""Read a nuScenes dataroot through nuscenes-devkit into a `PlanningLog`.

What the SparseDrive/VAD converters and FlowAD's evaluation take from the tables, redone
here with the devkit's `NuScenes` for the tables and their links:
- frames: the keyframes of the chosen scenes sorted by timestamp (mmdet3d's loader order);
- ego future: the LiDAR sensor's global pose (ego_pose x calibrated_sensor) at the next 6
  keyframes, in the current LiDAR frame; missing steps masked (`gt_ego_fut_masks`);
- agents: every annotation with at least one LiDAR or radar point (the converters'
  `valid_flag`) at the current and the 6 future keyframes, in the current LiDAR frame.
The devkit is imported here only: it pins numpy<2, so it is installed without its pins
(see `methods/driving/README.md`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import DataError
from methods.driving.log import FUTURE_STEPS, PlanningLog

INSTALL_HINT = ('Install it beside numpy 2 with: pip install -e ".[driving]" && '
                "pip install --no-deps nuscenes-devkit==1.2.0")


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of (..., 4) unit quaternions (w, x, y, z), pyquaternion's convention;
    vectorised because a val split holds ~10^5 annotations (checked against pyquaternion in the tests)."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def open_nuscenes(dataroot: Path, version: str):  # noqa: ANN201 - the devkit's NuScenes
    try:
        from nuscenes.nuscenes import NuScenes
    except ImportError:
        raise DataError("the driving loaders need nuscenes-devkit, which is not installed", hint=INSTALL_HINT) from None
    if not (dataroot / version).is_dir():
        raise DataError(f"no nuScenes version folder {version!r} under {dataroot}", file=dataroot)
    try:
        return NuScenes(version=version, dataroot=str(dataroot), verbose=False)
    except (AssertionError, KeyError, OSError, ValueError) as exc:
        raise DataError(f"nuscenes-devkit cannot load these tables ({type(exc).__name__}: {exc})",
                        file=dataroot / version, hint="All 13 tables and the map PNG must be present.") from None


def read_planning_log(dataroot: Path, version: str, name: str, scenes: list[str] | None = None) -> PlanningLog:
    """The planning log of `scenes` (names; all when None) of the dataset at `dataroot`/`version`."""
    nusc = open_nuscenes(Path(dataroot), version)
    known = {s["name"]: s["token"] for s in nusc.scene}
    wanted = list(known) if scenes is None else scenes
    missing = [s for s in wanted if s not in known]
    if missing:
        raise DataError(f"dataset {name!r} has no scene {missing[0]!r}", file=dataroot, field="scenes")
    scene_tokens = {known[s]: s for s in wanted}
    samples = sorted((s for s in nusc.sample if s["scene_token"] in scene_tokens), key=lambda s: s["timestamp"])
    poses = {s["token"]: _lidar_pose(nusc, s) for s in samples}
    agents: dict[str, tuple[np.ndarray, ...]] = {}
    n = len(samples)
    trajectory, mask, velocity = np.zeros((n, FUTURE_STEPS, 2)), np.zeros((n, FUTURE_STEPS), bool), np.zeros((n, 2))
    boxes, box_frame, box_step = [], [], []
    for i, sample in enumerate(samples):
        rotation, origin = poses[sample["token"]]
        to_local = _to_local(rotation, origin)
        chain, cursor = [sample["token"]], sample
        for _ in range(FUTURE_STEPS):
            if not cursor["next"]:
                break
            cursor = nusc.get("sample", cursor["next"])
            chain.append(cursor["token"])
        for step, future in enumerate(chain):
            if future not in poses:
                poses[future] = _lidar_pose(nusc, nusc.get("sample", future))
            if step:
                trajectory[i, step - 1] = to_local(poses[future][1][None])[0, :2]
                mask[i, step - 1] = True
            if future not in agents:
                agents[future] = _global_boxes(nusc, nusc.get("sample", future))
            centres, headings, sizes = agents[future]
            local_centre, local_heading = to_local(centres), to_local(headings, translate=False)
            boxes.append(np.column_stack([local_centre[:, :2], sizes,
                                          np.arctan2(local_heading[:, 1], local_heading[:, 0])]))
            box_frame.append(np.full(len(centres), i))
            box_step.append(np.full(len(centres), step))
        last = int(mask[i].sum())
        trajectory[i, last:] = trajectory[i, last - 1] if last else 0.0
        velocity[i] = _velocity(nusc, sample, poses, to_local)
    return PlanningLog(
        name=name, sample_token=np.array([s["token"] for s in samples]),
        scene=np.array([scene_tokens[s["scene_token"]] for s in samples]),
        timestamp=np.array([s["timestamp"] for s in samples], dtype=np.int64),
        gt_trajectory=trajectory, gt_mask=mask, ego_velocity=velocity,
        boxes=np.concatenate(boxes) if boxes else np.zeros((0, 5)),
        box_frame=np.concatenate(box_frame).astype(np.int64) if boxes else np.zeros(0, np.int64),
        box_step=np.concatenate(box_step).astype(np.int64) if boxes else np.zeros(0, np.int64),
    )


def _lidar_pose(nusc, sample: dict) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """Global rotation (3, 3) and position (3,) of the sample's LIDAR_TOP sensor."""
    data = nusc.get("sample_data", sample["data"]["LIDAR_TOP"])
    ego = nusc.get("ego_pose", data["ego_pose_token"])
    sensor = nusc.get("calibrated_sensor", data["calibrated_sensor_token"])
    ego_rotation = quaternion_matrix(np.array(ego["rotation"]))
    rotation = ego_rotation @ quaternion_matrix(np.array(sensor["rotation"]))
    origin = ego_rotation @ np.array(sensor["translation"], float) + np.array(ego["translation"], float)
    return rotation, origin


def _to_local(rotation: np.ndarray, origin: np.ndarray):  # noqa: ANN202
    def transform(points: np.ndarray, translate: bool = True) -> np.ndarray:
        shifted = points - origin if translate else points
        return shifted @ rotation
    return transform


def _global_boxes(nusc, sample: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # noqa: ANN001
    """Centres (M, 3), heading vectors (M, 3) and (length, width) (M, 2) of the sample's valid annotations."""
    anns = [nusc.get("sample_annotation", t) for t in sample["anns"]]
    anns = [a for a in anns if a["num_lidar_pts"] + a["num_radar_pts"] > 0]
    if not anns:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 2))
    rotation = quaternion_matrix(np.array([a["rotation"] for a in anns]))
    sizes = np.array([a["size"] for a in anns], dtype=np.float64)  # w, l, h
    return np.array([a["translation"] for a in anns], float), rotation[:, :, 0], sizes[:, [1, 0]]


def _velocity(nusc, sample: dict, poses: dict, to_local) -> np.ndarray:  # noqa: ANN001
    """m/s in the current frame from the previous keyframe's position (the next one at a scene start)."""
    neighbour, sign = (sample["prev"], -1.0) if sample["prev"] else (sample["next"], 1.0)
    if not neighbour:
        return np.zeros(2)
    if neighbour not in poses:
        poses[neighbour] = _lidar_pose(nusc, nusc.get("sample", neighbour))
    other = nusc.get("sample", neighbour)
    seconds = abs(other["timestamp"] - sample["timestamp"]) / 1e6 or 0.5
    return sign * to_local(poses[neighbour][1][None])[0, :2] / seconds
