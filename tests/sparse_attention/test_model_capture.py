"""Capture datasets from a model: the tiny Llama's (here a random one's) prefill Q/K/V on RULER prompts."""
from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from harness import DataError  # noqa: E402
from methods.sparse_attention.hf_attention import capture_qkv  # noqa: E402
from methods.sparse_attention.long_context import load_model  # noqa: E402
from methods.sparse_attention.model_capture import model_capture  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_captures_every_prompt_cut_to_the_shortest_and_equal_to_a_prefix_prefill(random_model_dir):
    data = model_capture("niah_single", 200, prompts=2, model={"path": str(random_model_dir)})
    assert data.q.shape[:3] == (2, 2, 4) and data.k.shape[:3] == (2, 2, 2)
    cases = data.cases(1)
    assert [c.name for c in cases] == ["prompt1/layer0", "prompt1/layer1"]
    n = data.q.shape[3]
    model, tokenizer = load_model(random_model_dir, torch.float32)
    from methods.sparse_attention import ruler
    from methods.sparse_attention.model_capture import CAPTURE_SEED_BASE

    prompt = ruler.generate("niah_single", 200, 2, seed=CAPTURE_SEED_BASE)[1].prompt
    prefix = capture_qkv(model, torch.tensor(tokenizer.encode(prompt)[:n]))
    np.testing.assert_allclose(data.q[1], prefix["q"], atol=1e-5)


def test_unknown_tasks_and_layers_are_data_errors(random_model_dir):
    with pytest.raises(DataError, match="unknown RULER task"):
        model_capture("summarise", model={"path": str(random_model_dir)})
    with pytest.raises(DataError, match="do not exist"):
        model_capture("niah_single", 200, prompts=1, model={"path": str(random_model_dir)}, layers=[5])
