"""The base policy: pretrained from scratch on MOSES neighbour pairs, cached on first use (harness.model_cache).

Each example asks a random objective (one or two) of an anchor molecule and answers, after the plan of edits
between the two, with one of its five most similar pool molecules or with a random mutant of it (one to three
RDKit edits written in the anchor's atom order: the base model learns to copy a molecule with local edits). The
objective tokens are noise here on purpose: the base model learns SMILES, copying with small edits and planning
them, but not which edit improves what; that is left to SFT and the RL methods (the stand-in for an
instruction-tuned LLM that cannot yet optimise).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from harness.model_cache import TRAINING_THREADS, cached_folder, recipe_folder
from methods.molecule_opt.chem import bulk_similarity
from methods.molecule_opt.mutation import mutate
from methods.molecule_opt.objectives import parse_objectives
from methods.molecule_opt.policy.model import mean_nll, new_model, sequences
from methods.molecule_opt.policy.tokens import completion, plan, prompt
from methods.molecule_opt.references import reference_pool

PRETRAIN_OBJECTIVES = ("qed+", "logp+", "mr+", "tpsa-", "plogp+")


@dataclass(frozen=True)
class PretrainConfig:
    """Everything that changes the base weights; its hash names the cache folder."""

    data_version: int = 4  # 2: mutant pairs beside the neighbour pairs; 3: answers as edit scripts; 4: in SELFIES
    layers: int = 4
    width: int = 128
    heads: int = 4
    pool: int = 12_000  # the first MOSES-train molecules the pairs come from (never a test source)
    anchors: int = 4_000
    neighbours: int = 5
    mutants: int = 8_000
    steps: int = 1200
    batch_size: int = 32
    learning_rate: float = 2e-3


def pretraining_pairs(config: PretrainConfig, rng: np.random.Generator) -> list[tuple[list[int], list[int]]]:
    pool = reference_pool(config.pool)
    fingerprints = list(pool.fingerprints)
    pairs = []
    for anchor in rng.choice(len(fingerprints), size=config.anchors, replace=False):
        sims = np.asarray(bulk_similarity(fingerprints[anchor], fingerprints))
        sims[anchor] = -1.0
        near = np.argsort(-sims)[:config.neighbours]
        source, target = pool.smiles[anchor], pool.smiles[int(rng.choice(near))]
        pairs.append(_pair(source, target, rng))
    for anchor in rng.choice(len(fingerprints), size=config.mutants):
        source = target = pool.smiles[anchor]
        for _ in range(int(rng.integers(1, 4))):
            target = mutate(target, rng) or target
        if target != source:
            pairs.append(_pair(source, target, rng))
    return pairs


def _pair(source: str, target: str, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    objectives = parse_objectives(",".join(rng.choice(PRETRAIN_OBJECTIVES, size=int(rng.integers(1, 3)),
                                                      replace=False)))
    return prompt(objectives, source), completion(source, target, plan(source, target))


def train_base(config: PretrainConfig, seed: int) -> tuple[Any, dict[str, Any]]:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    pairs = pretraining_pairs(config, rng)
    model = new_model(config.layers, config.width, config.heads)
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, config.learning_rate, total_steps=config.steps)
    losses = []
    for _ in range(config.steps):
        batch = sequences([pairs[i] for i in rng.choice(len(pairs), size=config.batch_size)])
        loss = mean_nll(model, batch)
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        losses.append(float(loss.detach()))
    record = {"config": asdict(config), "seed": seed, "seconds": time.perf_counter() - start,
              "parameters": sum(p.numel() for p in model.parameters()),
              "final_loss": float(np.mean(losses[-50:]))}
    return model.eval(), record


def _write(staging: Path, trained: tuple[Any, dict[str, Any]]) -> None:
    model, record = trained
    model.save_pretrained(staging)
    (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")


def base_policy(config: PretrainConfig = PretrainConfig(), seed: int = 0, cache_dir: str | Path | None = None,
                num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the pretrained base policy, trained and published first if absent."""
    root = recipe_folder("molopt-policy", config, seed, num_threads, cache_dir)
    return cached_folder(root, num_threads, lambda: train_base(config, seed), _write)


def load_policy(folder: Path) -> Any:
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(folder)
