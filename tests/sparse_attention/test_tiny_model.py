"""The tiny Llama's tokenizer, training sequences and cached preparation (with a few-step recipe, not the real one)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.model_cache import CACHE_ENV
from methods.sparse_attention import ruler, tiny_model

TINY = tiny_model.TrainingConfig(hidden_size=32, intermediate_size=64, num_layers=2, head_dim=4,
                                 induction_warmup=(64, 2, 1), curriculum=((256, 5, 5),), warmup_steps=1,
                                 eval_lengths=(256,), eval_samples=1)


@pytest.fixture(scope="module")
def tokenizer():
    return tiny_model.build_tokenizer()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    return tiny_model.prepare(cache_dir=tmp_path_factory.mktemp("models"), config=TINY, num_threads=1)


@pytest.mark.parametrize("task", list(ruler.TASKS))
def test_tokenizer_round_trips_prompts_one_token_a_word(tokenizer, task):
    for sample in ruler.generate(task, 600, 2):
        ids = tokenizer.encode(sample.prompt)
        assert ids[0] == tokenizer.bos_token_id
        assert tokenizer.unk_token_id not in ids
        assert len(ids) == sample.context_length
        assert tokenizer.decode(ids, skip_special_tokens=True) == sample.prompt


def test_training_sequence_supervises_each_answer_and_its_eos(tokenizer):
    sample = ruler.generate("niah_multikey", 300, 1)[0]
    ids, targets = tiny_model.training_sequence(sample, tokenizer)
    supervised = tokenizer.decode([ids[t + 1] for t in targets])
    answers = [sample.answers, *(a for _, a in sample.other_queries)]
    assert supervised == " ".join(f"{' '.join(a)} </s>" for a in answers)
    assert ids[:sample.context_length] == tokenizer.encode(sample.prompt)


def test_cache_folder_is_named_by_recipe_and_seed(tmp_path, monkeypatch):
    assert tiny_model.model_dir(TINY, 0, tmp_path) == tiny_model.model_dir(replace(TINY), 0, tmp_path)
    assert tiny_model.model_dir(TINY, 0, tmp_path) != tiny_model.model_dir(TINY, 1, tmp_path)
    assert tiny_model.model_dir(TINY, 0, tmp_path) != tiny_model.model_dir(replace(TINY, head_dim=8), 0, tmp_path)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "env"))
    assert tiny_model.model_dir(TINY, 0).parent == tmp_path / "env"
    assert tiny_model.model_dir(TINY, 0, tmp_path / "arg").parent == tmp_path / "arg"


def test_learning_rate_holds_through_the_warm_up_and_restarts_its_decay_each_stage():
    config = tiny_model.TrainingConfig(induction_warmup=(48, 64, 100), curriculum=((256, 8, 51), (512, 4, 51)),
                                       warmup_steps=10)
    rate = tiny_model._learning_rate
    assert rate(config, 0, 0) == pytest.approx(config.warmup_learning_rate / 10)
    assert rate(config, 0, 9) == rate(config, 0, 99) == config.warmup_learning_rate
    for stage in (1, 2):
        assert rate(config, stage, 0) == pytest.approx(config.learning_rate / 10)
        assert rate(config, stage, 25) == pytest.approx(config.learning_rate * 0.55)
        assert rate(config, stage, 50) == pytest.approx(config.learning_rate / 10)


def test_repeated_strings_take_each_stages_length_and_batch(tokenizer, monkeypatch):
    shapes = []
    real_batch = tiny_model._repeated_tokens_batch

    def recording_batch(tokenizer, rng, length, size):
        shapes.append((length, size))
        return real_batch(tokenizer, rng, length, size)

    monkeypatch.setattr(tiny_model, "_repeated_tokens_batch", recording_batch)
    tiny_model.train(TINY, 0, tokenizer)
    # the warm-up's one step, then the curriculum's two repeated-string turns of its five steps
    assert shapes == [TINY.induction_warmup[:2], TINY.curriculum[0][:2], TINY.curriculum[0][:2]]


def test_repeated_strings_past_the_cap_keep_the_stages_tokens_in_more_rows():
    config = tiny_model.TrainingConfig(repeated_tokens_max_length=1024)
    assert tiny_model._repeat_shape(config, 512, 4) == (512, 4)
    assert tiny_model._repeat_shape(config, 1024, 2) == (1024, 2)
    assert tiny_model._repeat_shape(config, 4096, 1) == (1024, 4)


@pytest.mark.slow
def test_prepare_writes_a_folder_that_loads_offline(prepared):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(prepared, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(prepared, local_files_only=True)
    assert (model.config.num_attention_heads, model.config.num_key_value_heads) == (8, 2)
    sample = ruler.generate("niah_single", 256, 1)[0]
    assert tokenizer.decode(tokenizer.encode(sample.prompt), skip_special_tokens=True) == sample.prompt
    answer = tiny_model.generate_answer(model, tokenizer, sample.prompt, max_new_tokens=3)
    assert isinstance(answer, str) and len(answer.split()) <= 3
    record = json.loads((prepared / "training.json").read_text())
    assert record["steps"] == 6 and record["seed"] == 0
    assert set(record["dense_accuracy"]) == set(ruler.TASKS)
    assert not list(prepared.parent.glob(".staging-*"))


@pytest.mark.slow
def test_prepare_reuses_an_existing_folder_without_training(prepared, monkeypatch):
    before = (prepared / "training.json").stat().st_mtime_ns
    monkeypatch.setattr(tiny_model, "train", lambda *a, **k: pytest.fail("retrained a cached model"))
    assert tiny_model.prepare(cache_dir=prepared.parent, config=TINY) == prepared
    assert (prepared / "training.json").stat().st_mtime_ns == before


@pytest.mark.slow
def test_worker_that_loses_the_race_keeps_the_winners_folder(tmp_path, monkeypatch):
    root = tiny_model.model_dir(TINY, 0, tmp_path)
    real_train = tiny_model.train

    def train_while_another_worker_finishes(*args, **kwargs):
        result = real_train(*args, **kwargs)
        root.mkdir(parents=True)
        (root / "training.json").write_text('{"winner": true}')
        return result

    monkeypatch.setattr(tiny_model, "train", train_while_another_worker_finishes)
    assert tiny_model.prepare(cache_dir=tmp_path, config=TINY, num_threads=1) == root
    assert json.loads((root / "training.json").read_text()) == {"winner": True}
    assert not list(tmp_path.glob(".staging-*"))
