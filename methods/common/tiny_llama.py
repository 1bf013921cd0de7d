"""The shared dense base: a tiny `LlamaForCausalLM` pre-trained from scratch on the mixed four-domain corpus,
one per seed, cached by recipe (config, seed, threads) through `harness.model_cache.cached_folder`.

MiCRo starts from a pretrained LM whose blocks it clones; here that LM is this model. Its folder holds the
Hugging Face weights (`save_pretrained`), `vocab.json` (the word list) and `training.json` (the recipe, the wall
time and the final loss).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.model_cache import TRAINING_THREADS, cached_folder, recipe_folder
from methods.common.corpus import CorpusConfig, build_corpus, vocabulary
from methods.common.vocab import BOS, EOS, PAD, WordTokenizer


@dataclass(frozen=True)
class BaseConfig:
    """Everything that changes the pre-trained weights; its hash names the cache folder. Bump `data_version`
    when `corpus.py` changes what it generates."""

    data_version: int = 1
    corpus: CorpusConfig = field(default_factory=CorpusConfig)
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    steps: int = 2000
    batch_size: int = 32
    learning_rate: float = 3e-3
    answer_weight: float = 3.0

    def __post_init__(self) -> None:
        if isinstance(self.corpus, dict):  # from YAML
            object.__setattr__(self, "corpus", CorpusConfig(**self.corpus))


def build_model(config: BaseConfig, tokenizer: WordTokenizer) -> Any:
    """A randomly initialised tiny Llama (RMSNorm, SwiGLU, RoPE), tied embeddings, SDPA attention."""
    from transformers import LlamaConfig, LlamaForCausalLM

    return LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=config.hidden_size, intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers, num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_heads, max_position_embeddings=128, pad_token_id=PAD, bos_token_id=BOS,
        eos_token_id=EOS, tie_word_embeddings=True, attn_implementation="sdpa"))


def _pretrained(config: BaseConfig, seed: int) -> tuple[Any, WordTokenizer, dict[str, Any]]:
    import torch

    from methods.common.corpus_training import TrainingStream, train_steps

    started = time.perf_counter()
    torch.manual_seed(seed)
    tokenizer = WordTokenizer.over(vocabulary(config.corpus))
    model = build_model(config, tokenizer)
    stream = TrainingStream(build_corpus(config.corpus), tokenizer, config.answer_weight, seed)
    losses = train_steps(model, stream, config.steps, config.batch_size, config.learning_rate)
    record = {"config": asdict(config), "seed": seed, "train_wall_s": round(time.perf_counter() - started, 1),
              "final_loss": losses[-1], "parameters": sum(p.numel() for p in model.parameters())}
    return model.eval(), tokenizer, record


def write(staging: Path, trained: tuple[Any, WordTokenizer, dict[str, Any]]) -> None:
    """A trained model's folder as `load` reads it: Hugging Face weights and config, the vocabulary, the record."""
    model, tokenizer, record = trained
    model.save_pretrained(staging)
    (staging / "vocab.json").write_text(json.dumps(list(tokenizer.words)) + "\n")
    (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: BaseConfig = BaseConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the base pre-trained with `config` and `seed` on `num_threads` torch threads, trained and
    written there first if absent."""
    root = recipe_folder("modular-base", config, seed, num_threads, cache_dir)
    return cached_folder(root, num_threads, lambda: _pretrained(config, seed), write)


def load(root: Path) -> tuple[Any, WordTokenizer]:
    """The cached base in eval mode and its tokenizer."""
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(root, attn_implementation="sdpa", local_files_only=True)
    return model.eval(), WordTokenizer(tuple(json.loads((root / "vocab.json").read_text())))
