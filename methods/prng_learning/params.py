"""The family's recipes and method parameters: types, ranges and defaults. Torch-free, so `harness validate`
and `harness plan` check a suite without importing a method."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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


class TrainingStream(MethodParams):
    """The training sequences (with the dataset's modulus, generator, split and length): `steps` batches of
    `batch` sequences of the training pairs, an optional curriculum over moduli, the generators mixed in. The
    decoder trains on this stream; the n-gram table counts the same one."""

    steps: int = Field(1500, ge=1, le=1_000_000, description="AdamW steps (batches of the training stream)")
    batch: int = Field(32, ge=1, le=4096, description="sequences per step")
    curriculum: str = Field("", pattern=r"^$|^\d+:\d+(\.\d+)?(,\d+:\d+(\.\d+)?)*$",
                            description="weighted mixture over moduli 'k:weight,...' (the target k among them)")
    train_generators: str = Field("", description="generators trained on jointly, '+'-separated (default: the "
                                                  "dataset's own)")


class DecoderParams(TrainingStream):
    """The decoder's size and optimiser (with its training stream and the dataset: its recipe)."""

    tiny = {"d_model": 32, "layers": 1, "heads": 2, "steps": 60, "batch": 16, "eval_every": 30}
    d_model: int = Field(128, ge=8, le=2048, description="hidden size")
    layers: int = Field(2, ge=1, le=24, description="decoder layers")
    heads: int = Field(4, ge=1, le=32, description="attention heads (d_model divisible by it)")
    lr: float = Field(3e-3, gt=0.0, le=1.0, description="peak learning rate (warm-up 5 %, cosine to 10 %)")
    eval_every: int = Field(100, ge=0, description="steps between held-out checks (0: none): the steps curve")


class NgramParams(TrainingStream):
    """The n-gram table's longest context and its training stream (give it the decoder's steps, batch,
    curriculum and generators, and it counts the decoder's own training sequences)."""

    version: ClassVar[str] = "2"  # 1 was an in-context lookup; 2 counts the training stream
    tiny = {"order": 2, "steps": 60, "batch": 16}
    order: int = Field(3, ge=1, le=8, description="longest context (last outputs) the table is keyed by")


class SolverParams(MethodParams):
    """The brute-force attacker's budget."""

    tiny = {"max_candidates": 200_000}
    max_candidates: int = Field(20_000_000, ge=1, description="most (a, c, state) candidates it enumerates")
