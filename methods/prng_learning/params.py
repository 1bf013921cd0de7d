"""The family's recipes and method parameters: types, ranges and defaults. Torch-free, so `harness validate`
and `harness plan` check a suite without importing a method."""
from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from harness import MethodParams


@dataclass(frozen=True)
class ModelConfig:
    """The decoder's recipe (with the training seed and thread count it names a cached model): the target
    modulus 2^k and its generators, an optional curriculum over moduli (bits and weights, the target among
    them), the Llama's size and the optimiser."""

    k: int = 6
    generators: tuple[str, ...] = ("lcg",)
    curriculum_bits: tuple[int, ...] = ()
    curriculum_weights: tuple[float, ...] = ()
    seq_len: int = 32
    d_model: int = 128
    layers: int = 2
    heads: int = 4
    ffn_mult: int = 4
    rope_theta: float = 10000.0
    init_std: float = 0.05
    steps: int = 1500
    batch: int = 32
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_fraction: float = 0.05
    test_fraction: float = 0.125
    split_seed: int = 97
    max_test_pairs: int = 256
    eval_every: int = 0
    monitor_sequences: int = 64


class DecoderParams(MethodParams):
    """The decoder's size and training (with the dataset's modulus, generator, split and length: its recipe),
    an optional curriculum over moduli and the generators it trains on jointly."""

    tiny = {"d_model": 32, "layers": 1, "heads": 2, "steps": 60, "batch": 16, "eval_every": 30}
    d_model: int = Field(128, ge=8, le=2048, description="hidden size")
    layers: int = Field(2, ge=1, le=24, description="decoder layers")
    heads: int = Field(4, ge=1, le=32, description="attention heads (d_model divisible by it)")
    steps: int = Field(1500, ge=1, le=1_000_000, description="AdamW steps")
    batch: int = Field(32, ge=1, le=4096, description="sequences per step")
    lr: float = Field(3e-3, gt=0.0, le=1.0, description="peak learning rate (warm-up 5 %, cosine to 10 %)")
    eval_every: int = Field(100, ge=0, description="steps between held-out checks (0: none): the steps curve")
    curriculum: str = Field("", pattern=r"^$|^\d+:\d+(\.\d+)?(,\d+:\d+(\.\d+)?)*$",
                            description="weighted mixture over moduli 'k:weight,...' (the target k among them)")
    train_generators: str = Field("", description="generators trained on jointly, '+'-separated (default: the "
                                                  "dataset's own)")


class NgramParams(MethodParams):
    """The in-context lookup's longest context."""

    tiny = {"order": 2}
    order: int = Field(3, ge=1, le=16, description="longest context (numbers) the lookup matches")


class SolverParams(MethodParams):
    """The brute-force attacker's budget."""

    tiny = {"max_candidates": 200_000}
    max_candidates: int = Field(20_000_000, ge=1, description="most (a, c, state) candidates it enumerates")
