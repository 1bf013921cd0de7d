"""Tiny Llama- and OPT-architecture models pre-trained on CPU on the prompt-style tasks, cached on first use.

QZO's claims are about fine-tuning a model that already knows something; a random model has nothing to
adapt. `prepare` trains a small `LlamaForCausalLM` or `OPTForCausalLM` from scratch on the four generated
tasks (`synthetic.py`) in MeZO's prompts, labelled by their pre-training rules, with the language-model loss
on every token and the answer's loss weighted up, then saves it as an ordinary Hugging Face folder (model,
word-level tokenizer, `training.json` with the recipe, the wall time and the accuracy under both rules).
The fine-tuning methods then adapt it to the target rules. Linear layers have in_features 128 or 384, so
the paper's group size of 128 applies unchanged.
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.causal_lm import load_causal_lm
from harness.model_cache import TRAINING_THREADS, TrainedModel, cached_model, recipe_folder
from methods.common.hf_tiny_lm import tokenizer_fields, word_level_tokenizer
from methods.zo_finetune import synthetic
from methods.zo_finetune.prompts import PromptExample

ARCHITECTURES = ("llama", "opt")
DTYPES = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class PretrainingConfig:
    """Everything that changes the pre-trained weights; its hash names the cache folder.

    Bump `data_version` whenever `synthetic.py` changes what it generates: the cached models learned the old data.
    """

    data_version: int = 1
    architecture: str = "llama"
    hidden_size: int = 128
    intermediate_size: int = 384
    num_layers: int = 4
    num_heads: int = 4
    tasks: tuple[str, ...] = ("sst2", "rte", "cb", "boolq")
    examples_per_task: int = 6000
    steps: int = 1500
    batch_size: int = 32
    learning_rate: float = 3e-3
    answer_weight: float = 5.0
    eval_examples: int = 400


def build_tokenizer():  # -> PreTrainedTokenizerFast
    """Word-level over `synthetic.vocabulary()`: lower-cased, split on whitespace and punctuation, BOS first."""
    from tokenizers import normalizers, pre_tokenizers

    words_and_punctuation = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    return word_level_tokenizer(synthetic.vocabulary(), words_and_punctuation, normalizers.Lowercase())


def build_model(config: PretrainingConfig, tokenizer):  # -> PreTrainedModel
    """A randomly initialised tiny Llama (RMSNorm, SwiGLU, RoPE) or OPT (LayerNorm, ReLU, learned positions)."""
    if config.architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {config.architecture!r}")
    special = tokenizer_fields(tokenizer)
    if config.architecture == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM

        return LlamaForCausalLM(LlamaConfig(
            hidden_size=config.hidden_size, intermediate_size=config.intermediate_size,
            num_hidden_layers=config.num_layers, num_attention_heads=config.num_heads,
            num_key_value_heads=config.num_heads, max_position_embeddings=256, attn_implementation="sdpa", **special))
    from transformers import OPTConfig, OPTForCausalLM

    return OPTForCausalLM(OPTConfig(
        hidden_size=config.hidden_size, ffn_dim=config.intermediate_size, num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads, word_embed_proj_dim=config.hidden_size, max_position_embeddings=256,
        attn_implementation="sdpa", **special))


def pretraining_examples(config: PretrainingConfig, seed: int) -> list[PromptExample]:
    """The tasks' prompts labelled by their pre-training rules, disjoint from the fine-tuning data's seeds."""
    mixed = [example for task in config.tasks
             for example in synthetic.examples(task, config.examples_per_task, seed=10_000 + seed, rule="pretrain")]
    random.Random(seed).shuffle(mixed)
    return mixed


def _batch(examples: list[PromptExample], tokenizer, answer_weight: float):
    """Token ids of `prompt + answer`, padded right, with per-token loss weights (answer up-weighted)."""
    import torch

    rows, weights = [], []
    for example in examples:
        prompt = tokenizer(example.prompt)["input_ids"]
        answer = tokenizer(" " + example.options[example.label], add_special_tokens=False)["input_ids"]
        rows.append(prompt + answer)
        weights.append([1.0] * (len(prompt) - 1) + [answer_weight] * len(answer))
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    weight = torch.zeros(len(rows), width - 1)
    for i, (row, w) in enumerate(zip(rows, weights, strict=True)):
        ids[i, :len(row)] = torch.tensor(row)
        weight[i, :len(w)] = torch.tensor(w)
    return ids, weight


def pretrain(config: PretrainingConfig, seed: int, tokenizer):  # -> (model, final_loss)
    """AdamW with a linear warm-up and a cosine decay; the weighted next-token loss over prompt and answer."""
    import math

    import torch

    torch.manual_seed(seed)
    model = build_model(config, tokenizer)
    examples = pretraining_examples(config, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=0.01)
    warmup = max(1, config.steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(
        (step + 1) / warmup, 0.5 * (1 + math.cos(math.pi * min(step, config.steps) / config.steps))))
    model.train()
    loss_value = float("nan")
    for step in range(config.steps):
        start = (step * config.batch_size) % (len(examples) - config.batch_size)
        ids, weight = _batch(examples[start:start + config.batch_size], tokenizer, config.answer_weight)
        logits = model(input_ids=ids, attention_mask=(ids != tokenizer.pad_token_id).long()).logits[:, :-1]
        token_loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
        loss = (token_loss * weight).sum() / weight.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        loss_value = loss.item()
    model.eval()
    return model, loss_value


def model_dir(config: PretrainingConfig, seed: int, cache_dir: str | Path | None = None,
              num_threads: int = TRAINING_THREADS) -> Path:
    # the folder's name shows the architecture, which a suite sets
    return recipe_folder(f"zo-tiny-{config.architecture}", config, seed, num_threads, cache_dir)


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: PretrainingConfig = PretrainingConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the model pre-trained with `config` and `seed` on `num_threads` torch threads (part of
    the recipe: other counts give other weights), trained and written there first if absent."""
    return cached_model(model_dir(config, seed, cache_dir, num_threads), num_threads,
                        lambda: _pretrained(config, seed, num_threads))


def _pretrained(config: PretrainingConfig, seed: int, num_threads: int) -> TrainedModel:
    """The model pre-trained from scratch, its tokenizer, and its record (with its accuracy per target rule)."""
    from methods.zo_finetune.objective import OptionScorer

    started = time.perf_counter()
    tokenizer = build_tokenizer()
    model, final_loss = pretrain(config, seed, tokenizer)
    train_s = time.perf_counter() - started
    scorer = OptionScorer(tokenizer)
    accuracy = {rule: {task: scorer.accuracy(model, synthetic.examples(task, config.eval_examples, 20_000, rule))
                       for task in config.tasks} for rule in synthetic.RULES}
    record = {"config": asdict(config), "seed": seed, "train_wall_s": round(train_s, 1),
              "torch_threads": num_threads, "final_loss": final_loss, "accuracy": accuracy,
              "rule_agreement": {task: synthetic.rule_agreement(task) for task in config.tasks},
              "parameters": sum(p.numel() for p in model.parameters())}
    return model, tokenizer, record


def load(path: str | Path, dtype: str = "float32"):  # -> (model, tokenizer)
    """A prepared (or any local Hugging Face causal LM) folder in eval mode, in `dtype`; never reaches a hub."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    return load_causal_lm(path, dtype)
