"""Users' files: SMPL-style joint arrays and video folders load, reconstructions come in as a predictions file
(`predictions:` in a suite), and every mistake names the file and the field (and a predictions file's line)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import harness
from harness import DataError
from harness.store import Store
from methods.motion_tokens import metrics
from methods.motion_tokens.byo import load_joint_arrays
from methods.motion_tokens.data import generated
from methods.motion_tokens.problem import Reconstruction
from methods.motion_tokens.skeleton import SMPL24_PARENTS
from methods.motion_tokens.task import MotionReconstruction
from methods.motion_tokens.video_data import EXAMPLE, read_video_clip, video_files
from methods.motion_tokens.video_example import write_example

RECONSTRUCTIONS_SUITE = """\
schema_version: 1
suite: byo_reconstructions
task: motion_tokens.reconstruction
defaults: {seeds: [0]}
datasets:
  walks: {loader: generated, args: {clips: 24, frames: 16}, split: {test_fraction: 0.25}}
metrics: [mpjpe, mpjpe_noise, codebook_usage]
methods:
  theirs: {predictions: "preds/{method}/{dataset}/{seed}.csv"}
"""


def test_a_sequence_npy_is_cut_into_clips_with_a_named_skeleton(tmp_path):
    np.save(tmp_path / "seq.npy", np.random.default_rng(0).normal(size=(100, 24, 3)))
    data = load_joint_arrays(tmp_path / "seq.npy", skeleton="smpl24", clip_frames=32)
    assert data.clips.shape == (3, 32, 24, 3) and data.parents == SMPL24_PARENTS


def test_an_npz_carries_its_own_parents_and_millimetres_convert(tmp_path):
    motion = generated(clips=2, frames=16)
    np.savez(tmp_path / "mine.npz", poses=motion.clips * 1000, parents=np.array(motion.parents))
    data = load_joint_arrays(tmp_path / "mine.npz", key="poses", clip_frames=16, units=0.001)
    np.testing.assert_allclose(data.clips, motion.clips)
    assert data.parents == motion.parents


@pytest.mark.parametrize(("content", "args", "field", "says"), [
    ({"poses": np.zeros((40, 17, 3))}, {}, "joints", "no array 'joints'"),
    ({"joints": np.zeros((40, 17, 2))}, {"skeleton": "h36m17"}, "joints", "expected shape"),
    ({"joints": np.full((40, 17, 3), np.nan)}, {"skeleton": "h36m17"}, "joints", "finite"),
    ({"joints": np.zeros((40, 17, 3))}, {}, "skeleton", "no joint tree"),
    ({"joints": np.zeros((40, 17, 3))}, {"skeleton": "smpl24"}, "skeleton", "24 parents for 17 joints"),
    ({"joints": np.zeros((40, 3, 3)), "parents": np.array([-1, 2, 0])}, {}, "parents", "precedes"),
    ({"joints": np.zeros((40, 17, 3))}, {"skeleton": "h36m17", "clip_frames": 32}, "clip_frames", "need 2"),
])
def test_mistakes_in_joint_arrays_name_the_file_and_field(tmp_path, content, args, field, says):
    path = tmp_path / "bad.npz"
    np.savez(path, **content)
    with pytest.raises(DataError) as error:
        load_joint_arrays(path, **args)
    assert error.value.field == field and says in error.value.message
    if field != "clip_frames":
        assert Path(error.value.file) == path


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(DataError) as error:
        load_joint_arrays(tmp_path / "none.npy")
    assert "no such file" in str(error.value) and "none.npy" in str(error.value)


def test_a_user_motion_file_runs_through_a_suite(tmp_path):
    motion = generated(clips=8, frames=16)
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "mine.npy", motion.clips)
    suite = tmp_path / "suite.yaml"
    suite.write_text("""schema_version: 1
suite: byo_motion
task: motion_tokens.reconstruction
defaults: {seeds: [0], threads: 1}
datasets:
  mine: {loader: joint_arrays, args: {path: mine.npy, skeleton: h36m17, clip_frames: 16}, split: {test_fraction: 0.25}}
metrics: [mpjpe, mpjpe_noise]
methods:
  keyframes: {impl: keyframes}
""")
    runs = harness.run(suite, store=tmp_path / "store.sqlite", executor="inline", data_root=tmp_path / "data")
    assert (runs["status"] == "ok").all() and runs["metric.mpjpe"].iloc[0] > 0


def test_the_shipped_example_is_what_the_generator_writes(tmp_path):
    write_example(tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == sorted(p.name for p in EXAMPLE.glob("*.npz"))
    for path in tmp_path.glob("*.npz"):
        fresh, shipped = read_video_clip(path), read_video_clip(EXAMPLE / path.name)
        np.testing.assert_array_equal(fresh.frames, shipped.frames)
        np.testing.assert_allclose(fresh.features, shipped.features, rtol=1e-12)


def test_video_folders_check_pairing_and_name_the_file(tmp_path):
    frames = np.zeros((4, 8, 8), dtype=np.uint8)
    np.savez(tmp_path / "real.npz", frames=frames, features=np.zeros((4, 3)))
    np.savez(tmp_path / "short.npz", frames=frames[:3])
    with pytest.raises(DataError) as error:
        video_files(tmp_path)
    assert error.value.field == "frames" and Path(error.value.file).name == "short.npz"
    np.savez(tmp_path / "short.npz", frames=frames.astype(np.float32))
    with pytest.raises(DataError, match="uint8"):
        video_files(tmp_path)
    (tmp_path / "short.npz").unlink()
    np.savez(tmp_path / "feats.npz", features=np.zeros((5, 4)))
    with pytest.raises(DataError, match="same dimension"):
        video_files(tmp_path)
    with pytest.raises(DataError, match="real.npz"):
        video_files(tmp_path / "nowhere")


@pytest.fixture()
def reconstructions(tmp_path):
    """Seed 0's test clips of the suite, decoded 1 cm off with tokens from a codebook of 8, as a predictions table,
    and where the suite reads it."""
    task = MotionReconstruction()
    instance = task.instance(generated(clips=24, frames=16), {"test_fraction": 0.25}, 0)
    shifted = {variant: clips + 0.01 for variant, clips in instance.inputs.test.items()}
    tokens = np.arange(6 * 68).reshape(6, 68) % 7
    table = task.predictions(instance, Reconstruction(shifted, tokens, codebook_size=8))
    path = tmp_path / "preds" / "theirs" / "walks" / "0.csv"
    path.parent.mkdir(parents=True)
    return task, instance, table, path


def test_a_reconstructions_file_scores_what_the_same_table_of_a_method_scores(reconstructions, cli, write_suite,
                                                                             store):
    task, instance, table, path = reconstructions
    table.to_csv(path, index=False)
    code, out, _ = cli("score", str(write_suite(RECONSTRUCTIONS_SUITE)), "--store", str(store))
    assert code == 0, out
    [record] = Store(store).records()
    expected = task.score(instance, table, {"mpjpe": metrics.MPJPE, "mpjpe_noise": metrics.MPJPE_NOISE,
                                            "codebook_usage": metrics.CODEBOOK_USAGE})
    assert record["metrics"] == pytest.approx(expected) and expected["codebook_usage"] == 87.5


@pytest.mark.parametrize(("change", "says"), [
    (lambda t: t.astype({"x": object}).assign(x=lambda u: u["x"].where(u.index != 40, "far")), ":42: x: 'far' is not"),
    (lambda t: t[(t["clip"] != 0) | (t["joint"] != 6)], ": clip: 1 test sample(s) have no row for variant 'clean', "
                                                       "joint 6, e.g. 0"),
    (lambda t: t[t["frame"] != 3], ": variant: clean: 1530 rows, not one per clip, frame and joint (6 x 16 x 17)"),
])
def test_a_wrong_reconstructions_file_names_its_line_and_column(reconstructions, cli, write_suite, store, change,
                                                                says):
    _, _, table, path = reconstructions
    change(table).to_csv(path, index=False)
    code, _, _ = cli("score", str(write_suite(RECONSTRUCTIONS_SUITE)), "--store", str(store))
    [record] = Store(store).records()
    assert code == 2 and f"{path}{says}" in record["error"]
