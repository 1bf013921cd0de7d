"""Tiny GPT-2 / Llama students and teachers, pre-trained on CPU on generated problems, cached on first use.

No package ships a small causal LM, and the family's claims are about training a model that already knows
some math. `prepare` trains a BPE tokenizer (`tokenizers`; digits split one per token, newlines isolated,
printable ASCII in the alphabet so real MATH text never maps to <unk>) and a GPT-2 or Llama model from
scratch on chain problems whose skill mix is the config's `skill_weights` (a rare skill is a missing one),
then saves both with `save_pretrained`: an ordinary local Hugging Face folder that lm-eval's `hf` backend
loads too. `training.json` records the recipe, the wall time and the per-skill accuracy.
"""
from __future__ import annotations

import json
import string
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.causal_lm import load_causal_lm
from harness.model_cache import TRAINING_THREADS, TrainedModel, cached_model, recipe_folder
from methods.common.hf_tiny_lm import SPECIAL_TOKENS, tokenizer_fields
from methods.math_reasoning import generator

ARCHITECTURES = ("gpt2", "llama")


@dataclass(frozen=True)
class StudentConfig:
    """Everything that changes the pre-trained weights; its hash names the cache folder.

    Bump `data_version` whenever `generator.py` changes what it generates. The default skill mix leaves
    `multiply` and `divide` rare: the base student's missing skills, which STAT should find.
    """

    data_version: int = 1
    architecture: str = "gpt2"
    hidden_size: int = 96
    num_layers: int = 3
    num_heads: int = 4
    vocab_size: int = 320
    skill_weights: tuple[tuple[str, float], ...] = (("add", 1.0), ("subtract", 1.0), ("multiply", 0.08),
                                                    ("divide", 0.08), ("remainder", 0.5))
    steps_range: tuple[int, int] = (1, 4)
    examples: int = 20000
    steps: int = 1500
    batch_size: int = 32
    learning_rate: float = 3e-3
    eval_examples: int = 300

    @property
    def weights(self) -> dict[str, float]:
        return dict(self.skill_weights)


# A tiny Llama pre-trained on a uniform skill mix: good at the skills the default student lacks. It is STAT-Syn's
# solver and GRACE's LM teacher. (The tiny GPT-2s learn arithmetic too slowly to be useful teachers: 3-58 % per
# skill after 1,500 steps.)
UNIFORM_TEACHER = {"seed": 1,
                   "config": {"architecture": "llama", "skill_weights": [[s, 1.0] for s in generator.SKILLS]}}
# A student pre-trained in seconds, for the tasks' tiny instances (the conformance tests): it knows little math.
TINY_STUDENT = {"config": {"hidden_size": 32, "num_layers": 1, "num_heads": 2, "examples": 256, "steps": 30,
                           "eval_examples": 10}}


def tokenizer_corpus(count: int = 3000, seed: int = 99) -> list[str]:
    """Generated questions and solutions in every step style: what the BPE merges are learned from."""
    from methods.math_reasoning.sft import prompt_text

    problems = generator.problem_set(count, seed, steps=(1, 4))
    return [prompt_text(p.question) + generator.restyle(p, i % len(generator.STEP_STYLES)).solution
            for i, p in enumerate(problems)]


def build_tokenizer(vocab_size: int = 320):  # -> PreTrainedTokenizerFast
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE(unk_token=SPECIAL_TOKENS["unk_token"]))
    backend.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex("\n"), behavior="isolated"), pre_tokenizers.Metaspace(prepend_scheme="never"),
        pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.Punctuation()])
    backend.decoder = decoders.Metaspace(prepend_scheme="never")
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL_TOKENS.values()),
                                  initial_alphabet=list(string.printable.strip() + "\n"), show_progress=False)
    backend.train_from_iterator(tokenizer_corpus(), trainer)
    # GPT-2 adds an embedding of any token_type_ids it is given; the tokenizer must not return them
    return PreTrainedTokenizerFast(tokenizer_object=backend, model_input_names=["input_ids", "attention_mask"],
                                   **SPECIAL_TOKENS)


def build_model(config: StudentConfig, tokenizer):  # -> PreTrainedModel
    if config.architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {config.architecture!r}")
    special = tokenizer_fields(tokenizer)
    if config.architecture == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        return GPT2LMHeadModel(GPT2Config(n_embd=config.hidden_size, n_layer=config.num_layers,
                                          n_head=config.num_heads, n_positions=320, resid_pdrop=0.0,
                                          embd_pdrop=0.0, attn_pdrop=0.0, **special))
    from transformers import LlamaConfig, LlamaForCausalLM

    return LlamaForCausalLM(LlamaConfig(
        hidden_size=config.hidden_size, intermediate_size=4 * config.hidden_size, num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads, num_key_value_heads=config.num_heads, max_position_embeddings=320,
        **special))


def skill_accuracy(model, tokenizer, count: int, seed: int, steps: tuple[int, int] = (1, 3)) -> dict[str, float]:
    """Greedy accuracy (%) on single-skill problems of each skill: where the model is strong or missing."""
    from methods.math_reasoning.answers import check_answer
    from methods.math_reasoning.generation import generate

    out = {}
    for skill in generator.SKILLS:
        problems = generator.problem_set(count, seed, steps=steps, weights={skill: 1.0})
        texts = generate(model, tokenizer, [p.question for p in problems]).texts
        correct = sum(check_answer(p.answer, t).correct for p, t in zip(problems, texts, strict=True))
        out[skill] = 100.0 * correct / count
    return out


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: StudentConfig = StudentConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the model pre-trained with `config` and `seed` on `num_threads` torch threads (part of
    the recipe: other counts give other weights), trained and written there first if absent."""
    # the folder's name shows the architecture, which a suite sets
    root = recipe_folder(f"math-tiny-{config.architecture}", config, seed, num_threads, cache_dir)
    return cached_model(root, num_threads, lambda: _pretrain(config, seed, num_threads))


def _pretrain(config: StudentConfig, seed: int, num_threads: int) -> TrainedModel:
    import torch

    from methods.math_reasoning import sft

    torch.manual_seed(seed)
    started = time.perf_counter()
    tokenizer = build_tokenizer(config.vocab_size)
    model = build_model(config, tokenizer)
    corpus = generator.problem_set(config.examples, 10_000 + seed, steps=config.steps_range, weights=config.weights)
    encoded = [sft.encode_pair(tokenizer, p.question, p.solution) for p in corpus]
    trace = sft.train(model, tokenizer.pad_token_id, encoded, sft.SFTConfig(
        steps=config.steps, batch_size=config.batch_size, learning_rate=config.learning_rate), seed)
    record = {"config": asdict(config), "seed": seed, "train_wall_s": round(time.perf_counter() - started, 1),
              "torch_threads": num_threads, "final_loss": trace.final_loss,
              "parameters": sum(p.numel() for p in model.parameters()),
              "skill_accuracy": skill_accuracy(model, tokenizer, config.eval_examples // len(generator.SKILLS),
                                               20_000 + seed)}
    return model, tokenizer, record


def load(path: str | Path, field: str = "args.model.path"):  # -> (model, tokenizer)
    """A prepared folder, or any local causal LM: float32, eval mode, pad set to eos when missing."""
    model, tokenizer = load_causal_lm(path, "float32", field)
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def training_record(folder: Path) -> Mapping | None:
    path = Path(folder) / "training.json"
    return json.loads(path.read_text()) if path.is_file() else None
