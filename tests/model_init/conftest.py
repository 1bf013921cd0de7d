"""The family's tests train their tiny sources once per session, in a cache of their own."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def tiny_model_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path_factory.getbasetemp() / "model-init-models"))
