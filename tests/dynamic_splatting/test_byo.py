"""Your own renders in a DyCheck-style folder: scored with masked PSNR, every mistake named with its file."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from harness import DataError
from methods.dynamic_splatting.byo import load_renders
from methods.dynamic_splatting.metrics import MPSNR_EXTREME, PSNR_EXTREME
from methods.dynamic_splatting.renders_task import RecordedRenders, RenderScoring


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
