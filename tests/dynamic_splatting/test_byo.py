"""Bring your own: renders in a DyCheck-style folder, scored with masked PSNR, every mistake named with its file;
and trajectories as a predictions file (`predictions:` in a suite), scored like a method's table."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from harness import DataError
from harness.store import Store
from methods.dynamic_splatting.byo import load_renders
from methods.dynamic_splatting.data import generated
from methods.dynamic_splatting.metrics import EPE, MPSNR_EXTREME, PSNR_EXTREME, UNCERTAINTY_SPEARMAN
from methods.dynamic_splatting.renders_task import RecordedRenders, RenderScoring
from methods.dynamic_splatting.task import DynamicMotion, MotionEstimate

TRAJECTORIES_SUITE = """\
schema_version: 1
suite: byo_trajectories
task: dynamic_splatting.motion
defaults: {seeds: [0]}
datasets:
  rigid: {loader: generated, args: {kind: rigid, frames: 4, image_size: 32, gaussians_per_blob: 20}}
metrics: [psnr_extreme, epe, uncertainty_spearman]
methods:
  theirs: {predictions: "preds/{method}/{dataset}/{seed}.jsonl"}
"""


def _png(path, array):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array).save(path)


@pytest.fixture()
def folder(tmp_path):
    rng = np.random.default_rng(0)
    for name in ("000", "001"):
        view = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
        _png(tmp_path / "rgb" / f"{name}.png", view)
        mask = np.zeros((8, 8), np.uint8)
        mask[:, :4] = 255
        _png(tmp_path / "covisible" / f"{name}.png", mask)
        render = view.copy()
        render[:, 4:] = 0  # wrong only outside the mask
        _png(tmp_path / "renders" / "mine" / f"{name}.png", render)
    return tmp_path


def test_renders_wrong_only_outside_the_mask_score_a_perfect_masked_psnr(folder):
    data = load_renders(folder)
    task = RenderScoring()
    instance = task.instance(data, {}, 0)
    output = RecordedRenders(run="mine").run(data, None)
    scores = task.score(instance, task.predictions(instance, output), {"m": MPSNR_EXTREME, "p": PSNR_EXTREME})
    assert math.isinf(scores["m"]) and scores["p"] < 20


@pytest.mark.parametrize(("change", "says"), [
    (lambda t: t.iloc[1:], "every pixel needs its row"),
    (lambda t: t.assign(y=t["y"] + 1), "y = 8 is outside"),
    (lambda t: t.assign(view=t["view"] + 1), "sample 2 is not a test sample"),
])
def test_a_renders_table_must_fill_every_view(folder, change, says):
    data = load_renders(folder)
    task = RenderScoring()
    instance = task.instance(data, {}, 0)
    table = change(task.predictions(instance, data.renders["mine"]))
    with pytest.raises(DataError, match=says):
        task.score(instance, task.checked(instance, table), {"p": PSNR_EXTREME})


def test_an_npy_render_is_read_like_a_png(folder):
    (folder / "renders" / "mine" / "001.png").unlink()
    np.save(folder / "renders" / "mine" / "001.npy", np.zeros((8, 8, 3)))
    assert load_renders(folder).renders["mine"][1].max() == 0


def test_a_missing_render_names_its_file(folder):
    (folder / "renders" / "mine" / "001.png").unlink()
    with pytest.raises(DataError, match="no render of view '001'") as raised:
        load_renders(folder)
    assert str(raised.value.file).endswith("001.png")


def test_a_render_of_the_wrong_size_names_its_file(folder):
    _png(folder / "renders" / "mine" / "000.png", np.zeros((4, 8, 3), np.uint8))
    with pytest.raises(DataError, match="the render is 8 x 4") as raised:
        load_renders(folder)
    assert str(raised.value.file).endswith("000.png")


def test_an_unreadable_image_names_its_file(folder):
    (folder / "rgb" / "000.png").write_text("not a png")
    with pytest.raises(DataError, match="cannot be read as an image") as raised:
        load_renders(folder)
    assert str(raised.value.file).endswith("000.png")


def test_an_unknown_run_is_a_data_error(folder):
    with pytest.raises(DataError, match="no run 'theirs'"):
        RecordedRenders(run="theirs").run(load_renders(folder), None)


@pytest.fixture()
def trajectories(tmp_path):
    """Seed 0's scene of the suite, the prior's motion rated by its own error as the predictions table, and where
    the suite reads that table."""
    task = DynamicMotion()
    instance = task.instance(generated("rigid", frames=4, image_size=32, gaussians_per_blob=20), {}, 0)
    prior = instance.inputs.prior
    error = np.linalg.norm(prior - instance.truth.scene.positions, axis=-1).mean(0)
    table = task.predictions(instance, MotionEstimate(prior, uncertainty=error))
    path = tmp_path / "preds" / "theirs" / "rigid" / "0.jsonl"
    path.parent.mkdir(parents=True)
    return task, instance, table, path


def test_a_trajectories_file_scores_what_the_same_table_of_a_method_scores(trajectories, cli, write_suite, store):
    task, instance, table, path = trajectories
    table.to_json(path, orient="records", lines=True)
    code, out, _ = cli("score", str(write_suite(TRAJECTORIES_SUITE)), "--store", str(store))
    assert code == 0, out
    [record] = Store(store).records()
    expected = task.score(instance, table, {"psnr_extreme": PSNR_EXTREME, "epe": EPE,
                                            "uncertainty_spearman": UNCERTAINTY_SPEARMAN})
    assert record["metrics"] == pytest.approx(expected) and expected["uncertainty_spearman"] == pytest.approx(1.0)


def test_a_wrong_value_in_a_trajectories_file_names_its_line_and_column(trajectories, cli, write_suite, store):
    _, _, table, path = trajectories
    table.astype({"z": object}).assign(z=lambda t: t["z"].where(t.index != 6, "deep")).to_json(
        path, orient="records", lines=True)
    code, _, _ = cli("score", str(write_suite(TRAJECTORIES_SUITE)), "--store", str(store))
    [record] = Store(store).records()
    assert code == 2 and f"{path}:7: z: 'deep' is not a number" in record["error"]


def test_a_trajectories_file_without_a_frame_says_which(trajectories, cli, write_suite, store):
    _, _, table, path = trajectories
    table[table["frame"] != 2].to_json(path, orient="records", lines=True)
    cli("score", str(write_suite(TRAJECTORIES_SUITE)), "--store", str(store))
    [record] = Store(store).records()
    assert f"{path}: frame: the predictions' frames are 0, 1, 3, the scene's 0 to 3" in record["error"]
