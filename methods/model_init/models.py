"""The model shapes and the source: a tiny `LlamaForCausalLM` (RMSNorm, SwiGLU, RoPE, tied embeddings) built
from transformers' classes, and the source pre-trained from scratch on the corpus's train lines, cached by
recipe (shape, steps, corpus digest, seed, threads) through `harness.model_cache.cached_folder`.

The folder is written and read as modular_lm's dense base is (`tiny_llama.write`, `load`): the Hugging Face
weights, `vocab.json` (the word list) and `training.json` (the recipe, the wall and CPU time, the final loss, the
parameter count)."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.file_names import file_safe
from harness.model_cache import TRAINING_THREADS, cache_root, cached_folder, recipe_digest
from methods.model_init.text import TextCorpus
from methods.common.tiny_llama import write as write_base
from methods.common.vocab import BOS, EOS, PAD, WordTokenizer


@dataclass(frozen=True)
class Shape:
    """A decoder's size; every head is `hidden // heads` wide (students keep the source's head width)."""

    hidden: int
    layers: int
    heads: int
    ffn: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


@dataclass(frozen=True)
class SourceConfig:
    """Everything that changes the source's weights but the corpus (its digest joins the recipe)."""

    hidden: int = 192
    layers: int = 4
    heads: int = 6
    ffn: int = 768
    steps: int = 1500
    batch_size: int = 32
    learning_rate: float = 2e-3
    answer_weight: float = 1.0  # the loss weight of each line's last word (its answer) against 1 for the others

    @property
    def shape(self) -> Shape:
        return Shape(self.hidden, self.layers, self.heads, self.ffn)


def build_model(shape: Shape, vocab_size: int) -> Any:
    """A randomly initialised tiny Llama of `shape` (the caller seeds torch)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    return LlamaForCausalLM(LlamaConfig(
        vocab_size=vocab_size, hidden_size=shape.hidden, intermediate_size=shape.ffn, num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads, num_key_value_heads=shape.heads, max_position_embeddings=128,
        pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS, tie_word_embeddings=True, attn_implementation="sdpa"))


def model_shape(model: Any) -> Shape:
    config = model.config
    return Shape(config.hidden_size, config.num_hidden_layers, config.num_attention_heads, config.intermediate_size)


def parameters(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


def _pretrained(corpus: TextCorpus, config: SourceConfig, seed: int) -> tuple[Any, WordTokenizer, dict[str, Any]]:
    import torch

    from methods.common.corpus_training import train_steps
    from methods.model_init.training import answer_weighted_loss

    wall, cpu = time.perf_counter(), time.process_time()
    torch.manual_seed(seed)
    tokenizer = corpus.tokenizer
    model = build_model(config.shape, len(tokenizer))
    losses = train_steps(model, corpus.stream(seed), config.steps, config.batch_size,
                         config.learning_rate, step_loss=answer_weighted_loss(config.answer_weight))
    record = {"config": asdict(config), "balanced": corpus.balanced, "seed": seed,
              "train_wall_s": round(time.perf_counter() - wall, 1),
              "train_cpu_s": round(time.process_time() - cpu, 1), "final_loss": losses[-1],
              "parameters": parameters(model)}
    return model.eval(), tokenizer, record


def prepare(corpus: TextCorpus, cache_dir: str | Path | None = None, seed: int = 0,
            config: SourceConfig = SourceConfig(), num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the source pre-trained on `corpus` with `config` and `seed`, trained there first if absent."""
    from harness.fingerprint import digest

    lines = {"train": corpus.train, **({"groups": corpus.train_groups} if corpus.balanced else {})}
    recipe = recipe_digest(config, seed, num_threads) + digest(lines)[:12]
    root = cache_root(cache_dir) / file_safe(f"masa-source-{recipe}")
    return cached_folder(root, num_threads, lambda: _pretrained(corpus, config, seed), write_base)
