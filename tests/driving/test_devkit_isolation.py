"""nuscenes-devkit beside numpy 2: installed with --no-deps, it still reads the generated dataset.

The devkit pins numpy<2, which pandas/pyarrow/datasets builds for numpy 2 reject, so the
`driving` extra lists its real runtime needs and the devkit itself is installed without
its pins. These tests check that combination; they skip when the devkit is absent.
"""
from __future__ import annotations

import importlib.metadata
import json

import numpy as np
import pytest

from methods.driving.data import generated_dataroot, generated_scenes
from methods.driving.generator import SceneSpec
from methods.driving.nuscenes_log import quaternion_matrix

nuscenes = pytest.importorskip(
    "nuscenes.nuscenes", reason='nuscenes-devkit is absent: pip install -e ".[driving]" && '
                                "pip install --no-deps nuscenes-devkit==1.2.0")
SPEC = SceneSpec(num_scenes=2, keyframes=12, seed=5)
TABLES = {"category", "attribute", "visibility", "instance", "sensor", "calibrated_sensor", "ego_pose", "log",
          "scene", "sample", "sample_data", "sample_annotation", "map"}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("driving-cache"))


@pytest.fixture(scope="module")
def nusc(cache):
    return nuscenes.NuScenes(version=SPEC.version, dataroot=str(generated_dataroot(SPEC, cache)), verbose=False)


def test_numpy_2_pandas_and_pyarrow_import_beside_the_devkit():
    import pandas as pd
    import pyarrow as pa

    assert int(np.__version__.split(".")[0]) >= 2
    frame = pd.DataFrame({"x": np.arange(3.0)})
    assert pa.Table.from_pandas(frame).num_rows == 3
    assert importlib.metadata.version("nuscenes-devkit")


def test_generator_writes_all_13_tables_and_the_map_png(cache):
    root = generated_dataroot(SPEC, cache)
    assert {p.stem for p in (root / SPEC.version).glob("*.json")} == TABLES
    map_record = json.loads((root / SPEC.version / "map.json").read_text())[0]
    assert (root / map_record["filename"]).is_file()


def test_generator_is_deterministic(tmp_path, cache):
    again = generated_dataroot(SPEC, str(tmp_path))
    first = generated_dataroot(SPEC, cache)
    for table in TABLES:
        name = f"{table}.json"
        assert (again / SPEC.version / name).read_bytes() == (first / SPEC.version / name).read_bytes()


def test_devkit_loads_the_generated_tables(nusc):
    assert len(nusc.scene) == 2 and len(nusc.sample) == 24
    first = nusc.get("sample", nusc.scene[0]["first_sample_token"])
    assert "LIDAR_TOP" in first["data"] and first["anns"]


def test_devkit_puts_the_lead_car_about_ten_metres_ahead_in_the_lidar_frame(nusc):
    first = nusc.get("sample", nusc.scene[0]["first_sample_token"])
    _, boxes, _ = nusc.get_sample_data(first["data"]["LIDAR_TOP"])
    lead = min(boxes, key=lambda b: abs(b.center[0]) + abs(b.center[1] - 10.0))
    assert lead.center[0] == pytest.approx(0.0, abs=1e-6)
    assert 9.0 < lead.center[1] < 11.5       # 11 m +- 1 m ahead of the rear axle, the LiDAR 0.94 m ahead of it


def test_our_reader_agrees_with_the_devkit_boxes_in_the_sensor_frame(nusc, cache):
    log = generated_scenes(num_scenes=2, keyframes=12, seed=5, cache_dir=cache)
    row = 3
    sample = nusc.get("sample", str(log.sample_token[row]))
    _, boxes, _ = nusc.get_sample_data(sample["data"]["LIDAR_TOP"])
    ours = log.boxes[(log.box_frame == row) & (log.box_step == 0)]
    theirs = np.array([[b.center[0], b.center[1], b.wlh[1], b.wlh[0], b.orientation.yaw_pitch_roll[0]]
                       for b in boxes if nusc.get("sample_annotation", b.token)["num_lidar_pts"] > 0])
    order = lambda a: a[np.lexsort((a[:, 1], a[:, 0]))]  # noqa: E731
    assert order(ours)[:, :4] == pytest.approx(order(theirs)[:, :4], abs=1e-6)
    assert np.cos(order(ours)[:, 4] - order(theirs)[:, 4]) == pytest.approx(1.0, abs=1e-9)


def test_our_quaternion_matrix_matches_pyquaternion():
    from pyquaternion import Quaternion

    q = np.random.default_rng(0).normal(size=(5, 4))
    for quaternion, matrix in zip(q, quaternion_matrix(q), strict=True):
        assert matrix == pytest.approx(Quaternion(quaternion / np.linalg.norm(quaternion)).rotation_matrix)


def test_reader_builds_the_logged_future_and_masks_the_scene_end(cache):
    log = generated_scenes(num_scenes=2, keyframes=12, seed=5, cache_dir=cache)
    assert len(log) == 24 and log.complete.sum() == 2 * (12 - 6)
    first = log.gt_trajectory[0]
    assert np.all(np.diff(first[:, 1]) > 2.0)         # 5-9 m/s straight ahead at the start: +y
    assert np.abs(first[:, 0]).max() < 0.5
    speed = np.linalg.norm(log.ego_velocity[1])
    assert speed == pytest.approx(np.linalg.norm(log.gt_trajectory[0, 0]) / 0.5)
    assert log.box_step.max() == 6


def test_dataroot_loader_reads_a_version_folder_by_one_of_its_tables(cache):
    from methods.driving.data import load_nuscenes

    root = generated_dataroot(SPEC, cache)
    log = load_nuscenes(root / SPEC.version / "sample.json", scenes=["scene-0002"])
    assert set(log.scene) == {"scene-0002"} and len(log) == 12
