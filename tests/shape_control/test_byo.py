"""Bring your own: controls as superquadric parameters and your generator's meshes or point clouds, read with
every mistake named by file and line, and scored through a suite (end to end, exit 3 on a broken file); or
shapes already in the task's predictions table, a file per seed scored by the engine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from harness import DataError
from harness.store import Store
from methods.shape_control.byo import read_controls
from methods.shape_control.scoring import encode_grid
from methods.shape_control.superquadric import occupancy
from tests.shape_control.conftest import TINY_CLASSIFIER, TINY_FLOW

SEAT = {"scale": [0.6, 0.5, 0.1], "exponents": [0.1, 0.1], "center": [0.0, 0.0, -0.2]}
LEGS = {"scale": [0.5, 0.4, 0.35], "exponents": [0.1, 0.1], "center": [0.0, 0.0, -0.65], "yaw": 0.0}


def _write(path, records) -> None:  # noqa: ANN001
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


@pytest.fixture
def shapes(tmp_path):
    import trimesh

    box = trimesh.creation.box(extents=[1.2, 1.0, 0.2])
    box.apply_translation([0.0, 0.0, -0.2])
    box.export(tmp_path / "seat.ply")
    box.export(tmp_path / "seat.obj")
    np.save(tmp_path / "cloud.npy", np.asarray(box.sample(500, seed=0)))
    return tmp_path


def test_meshes_are_sampled_and_voxelised_and_clouds_keep_their_points(shapes):
    _write(shapes / "controls.jsonl", [{"id": "a", "parts": [SEAT, LEGS], "shape": "seat.ply"}, "",
                                       {"id": "b", "parts": [SEAT], "shape": "cloud.npy"},
                                       {"id": "c", "parts": [SEAT], "shape": "seat.obj"},
                                       {"id": "d", "parts": [SEAT]}])
    a, b, c, d = read_controls(shapes / "controls.jsonl", 16)
    assert [r.id for r in (a, b, c, d)] == ["a", "b", "c", "d"] and len(a.parts) == 2
    assert a.shape is not None and a.shape.points.shape == (2048, 3) and a.shape.grid is not None
    assert a.shape.grid.sum() == 10 * 8 * 1  # voxel centres inside the 1.2 x 1.0 x 0.2 box: x 10, y 8, z 1 layer
    assert b.shape is not None and b.shape.points.shape == (500, 3) and b.shape.grid is None
    assert c.shape is not None and (c.shape.grid == a.shape.grid).all()
    assert d.shape is None


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r"controls.jsonl:2:2: not valid JSON"),
    ("[1]", r"controls.jsonl:2: a line holds one JSON object, got list"),
    ({"parts": [SEAT]}, r"controls.jsonl:2: id: no control 'id'"),
    ({"id": "a", "parts": [SEAT]}, r"controls.jsonl:2: id: control 'a' appears twice"),
    ({"id": "b", "parts": []}, r"controls.jsonl:2: parts: 'parts' must be a non-empty list"),
    ({"id": "b", "parts": [{"scale": [1, 1], "exponents": [1, 1]}]}, r"2: parts\[0\].scale: scale must be a list of 3"),
    ({"id": "b", "parts": [{"scale": [1, 0, 1], "exponents": [1, 1]}]}, r"2: parts\[0\].scale: scale must be positive"),
    ({"id": "b", "parts": [{"scale": [1, 1, 1], "exponents": [1, 9]}]}, r"2: parts\[0\].exponents: exponents must lie"),
    ({"id": "b", "parts": [{**SEAT, "roll": 1}]}, r"jsonl:2: parts\[0\].roll: unknown part key 'roll'"),
    ({"id": "b", "parts": [SEAT], "shape": "seat.glb"}, r"controls.jsonl:2: shape: 'shape' must name a"),
    ({"id": "b", "parts": [SEAT], "shape": "gone.ply"}, r"controls.jsonl:2: shape: shape file 'gone.ply' not found"),
    ({"id": "b", "parts": [SEAT], "shape": "bad.npy"}, r"jsonl:2: shape: shape file 'bad.npy' cannot be read: a point"),
    ({"id": "b", "parts": [SEAT], "colour": "red"}, r"controls.jsonl:2: colour: unknown key 'colour'"),
])
def test_mistakes_name_the_file_and_line(shapes, line, message):
    np.save(shapes / "bad.npy", np.zeros((4, 2)))
    _write(shapes / "controls.jsonl", [{"id": "a", "parts": [SEAT]}, line])
    with pytest.raises(DataError, match=message):
        read_controls(shapes / "controls.jsonl", 16)


SUITE = f"""\
schema_version: 1
suite: my_generator
task: shape_control.controlled_generation
defaults: {{seeds: [0], timeout: 5m, threads: 1}}
datasets:
  mine:
    loader: byo
    args: {{controls_path: controls.jsonl, reference: 16, model: {{config: {json.dumps(TINY_FLOW)}}},
           classifier: {{config: {json.dumps(TINY_CLASSIFIER)}}}}}
metrics: [chamfer_l2, fscore, iou, nn_distance]
methods:
  recorded: {{impl: recorded}}
  copy: {{impl: copy}}
"""


def test_a_users_shapes_are_scored_through_a_suite_and_a_broken_file_exits_3(cli, write_suite, shapes):
    _write(shapes / "controls.jsonl", [{"id": "a", "parts": [SEAT], "shape": "seat.ply"},
                                       {"id": "b", "parts": [SEAT, LEGS], "shape": "seat.ply"}])
    suite = str(write_suite(SUITE))
    code, _, err = cli("run", suite, "--store", str(shapes / "a.sqlite"), "--data-root", str(shapes),
                       "--executor", "inline", plugin=False)
    assert code == 0, err
    code, _, err = cli("export", "--suite", suite, "--store", str(shapes / "a.sqlite"), "--format", "csv", "--out",
                       str(shapes / "r.csv"), plugin=False)
    assert code == 0, err
    import pandas as pd

    runs = pd.read_csv(shapes / "r.csv").set_index("method")
    assert runs.loc["copy", "metric.iou"] == 1.0
    # the seat box matches control a's voxels and covers a third of control b's (seat + leg block)
    assert 0.4 < runs.loc["recorded", "metric.iou"] < 1.0 and runs.loc["recorded", "metric.fscore"] > 0.5
    _write(shapes / "controls.jsonl", [{"id": "a", "parts": [SEAT], "shape": "seat.ply"}, {"id": "b"}])
    code, _, err = cli("run", suite, "--store", str(shapes / "b.sqlite"), "--data-root", str(shapes), plugin=False)
    assert code == 3 and f"{shapes / 'controls.jsonl'}:2: parts: 'parts' must be" in err and "Traceback" not in err


def test_a_predictions_file_scores_as_the_method_whose_table_it_holds_and_a_bad_line_is_named(cli, write_suite,
                                                                                             shapes):
    _write(shapes / "controls.jsonl", [{"id": "a", "parts": [SEAT]}, {"id": "b", "parts": [SEAT, LEGS]}])
    rows = [{"shape": r.id, "occupancy": encode_grid(occupancy(r.parts, 16)), "points": None}  # the copy's table
            for r in read_controls(shapes / "controls.jsonl", 16)]
    path = shapes / "preds" / "theirs" / "mine" / "0.jsonl"
    path.parent.mkdir(parents=True)
    _write(path, rows)
    suite = str(write_suite(SUITE.replace("  recorded: {impl: recorded}",
                                          '  theirs: {predictions: "preds/{method}/{dataset}/{seed}.jsonl"}')))
    code, _, err = cli("run", suite, "--store", str(shapes / "a.sqlite"), "--data-root", str(shapes),
                       "--executor", "inline", plugin=False)
    assert code == 0, err
    metrics = {r["method"]: r["metrics"] for r in Store(shapes / "a.sqlite").records()}
    assert metrics["theirs"] == metrics["copy"] and metrics["copy"]["iou"] == 1.0
    _write(path, [rows[0], {**rows[1], "occupancy": 7}])
    code, _, _ = cli("score", suite, "--store", str(shapes / "b.sqlite"), "--data-root", str(shapes), plugin=False)
    [failed] = [r for r in Store(shapes / "b.sqlite").records() if r["status"] == "failed"]
    assert code == 2 and f"{path}:2: occupancy: 7 is not a text" in failed["error"]
