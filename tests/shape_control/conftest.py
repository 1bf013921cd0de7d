"""The family's tests train their tiny models once per session, in a cache of their own."""
from __future__ import annotations

import pytest

TINY_FLOW = {"train_shapes": 300, "steps": 200, "hidden": 128, "latent_dim": 32}
TINY_CLASSIFIER = {"train_shapes": 300, "epochs": 1}


@pytest.fixture(autouse=True)
def tiny_model_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path_factory.getbasetemp() / "shape-control-models"))
