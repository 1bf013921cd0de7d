"""A tiny randomly initialised Llama with the family's tokenizer: fast enough for every test."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture
def tokenizer():
    from methods.zo_finetune.tiny_model import build_tokenizer

    return build_tokenizer()


@pytest.fixture(params=["llama", "opt"])
def tiny_model(request, tokenizer):
    from methods.zo_finetune.tiny_model import PretrainingConfig, build_model

    torch.manual_seed(0)
    return build_model(PretrainingConfig(architecture=request.param, num_layers=2), tokenizer).eval()
