"""The cached pre-training step: an ordinary Hugging Face folder, written once, keyed by its recipe."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from methods.zo_finetune import tiny_model  # noqa: E402

QUICK = dict(steps=3, examples_per_task=16, batch_size=4, eval_examples=8, num_layers=1)


@pytest.mark.parametrize("architecture", tiny_model.ARCHITECTURES)
def test_prepare_writes_a_loadable_model_once(tmp_path, architecture):
    config = tiny_model.PretrainingConfig(architecture=architecture, **QUICK)
    folder = tiny_model.prepare(cache_dir=tmp_path, config=config)
    record = json.loads((folder / "training.json").read_text())
    assert record["config"]["architecture"] == architecture and set(record["accuracy"]) == {"pretrain", "target"}
    stamp = (folder / "training.json").stat().st_mtime_ns
    assert tiny_model.prepare(cache_dir=tmp_path, config=config) == folder
    assert (folder / "training.json").stat().st_mtime_ns == stamp  # cached, not retrained
    model, tokenizer = tiny_model.load(folder)
    assert model.config.model_type == architecture and tokenizer.pad_token_id is not None


def test_recipe_changes_name_a_new_folder(tmp_path):
    first = tiny_model.model_dir(tiny_model.PretrainingConfig(**QUICK), 0, tmp_path)
    assert first != tiny_model.model_dir(tiny_model.PretrainingConfig(**QUICK, data_version=2), 0, tmp_path)
    assert first != tiny_model.model_dir(tiny_model.PretrainingConfig(**QUICK), 1, tmp_path)
    assert first != tiny_model.model_dir(tiny_model.PretrainingConfig(**QUICK), 0, tmp_path, num_threads=2)


@pytest.mark.slow
def test_a_recipe_retrained_in_a_fresh_cache_has_the_same_weights_whatever_the_process_threads(tmp_path):
    """Run keys hash the recipe, not the weights, so retraining must give the weights back exactly. At
    batch 32 one and two threads round differently on an Intel Xeon (smaller batches happen not to): the
    recipe's count rules. Where they round alike (an AMD EPYC) the check cannot tell, and says so."""
    import hashlib

    import torch

    config, previous = tiny_model.PretrainingConfig(**{**QUICK, "steps": 4, "batch_size": 32}), torch.get_num_threads()

    def weights(folder: str, process_threads: int, **recipe: int) -> str:
        torch.set_num_threads(process_threads)
        root = tiny_model.prepare(cache_dir=tmp_path / folder, config=config, **recipe)
        return hashlib.sha256((root / "model.safetensors").read_bytes()).hexdigest()

    try:
        first, again, two_threads = weights("a", 1), weights("b", 2), weights("c", 1, num_threads=2)
    finally:
        torch.set_num_threads(previous)
    assert first == again
    if two_threads == first:
        pytest.skip("one and two threads give the same weights on this CPU: whether the recipe's count rules "
                    "over the process's cannot be seen here")


def test_unknown_architecture_is_a_clear_error(tokenizer):
    with pytest.raises(ValueError, match="architecture must be one of"):
        tiny_model.build_model(tiny_model.PretrainingConfig(architecture="gpt2"), tokenizer)


def test_a_folder_without_config_is_a_user_error(tmp_path):
    from harness import DataError

    with pytest.raises(DataError, match="no config.json"):
        tiny_model.load(tmp_path)
