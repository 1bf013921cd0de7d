"""The training sequences of a recipe, torch-free: the decoder trains on this stream and the n-gram table is
counted over the very same one (same recipe, same seed), so the two references see identical data.

A curriculum is a weighted mixture over moduli (the target modulus among them): each batch's sequences are drawn
per modulus in proportion to its weight, with that modulus's own training pairs; joint training mixes the
generators equally. Only training pairs are ever drawn: held-out pairs never enter the stream."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from harness.errors import DataError
from methods.prng_learning.data import PrngSource
from methods.prng_learning.generators import Generator, PairSplit, parse_generator, split_pairs
from methods.prng_learning.params import ModelConfig, TrainingStream


def recipe(source: PrngSource, params: TrainingStream, **model: int | float) -> ModelConfig:
    """The recipe for a source: its modulus, generator(s), split and length, the stream's steps, batch,
    curriculum and generators, and `model`'s sizes (the decoder's; the n-gram table has none)."""
    generators = tuple(params.train_generators.split("+")) if params.train_generators else (source.generator,)
    if source.generator not in generators:
        raise DataError(f"the training stream holds {', '.join(generators)} but the dataset holds "
                        f"{source.generator}", field="params.train_generators",
                        hint="Name the dataset's generator among them.")
    bits: tuple[int, ...] = ()
    weights: tuple[float, ...] = ()
    if params.curriculum:
        items = [item.split(":") for item in params.curriculum.split(",")]
        bits = tuple(int(k) for k, _ in items)
        weights = tuple(float(w) for _, w in items)
        if source.k not in bits:
            raise DataError(f"the curriculum {params.curriculum!r} leaves out the target k = {source.k}",
                            field="params.curriculum", hint="Give the target modulus a weight too.")
    return ModelConfig(k=source.k, generators=generators, curriculum_bits=bits, curriculum_weights=weights,
                       seq_len=source.seq_len, steps=params.steps, batch=params.batch,
                       test_fraction=source.test_fraction, split_seed=source.split_seed,
                       max_test_pairs=source.max_test_pairs, **model)  # type: ignore[arg-type]


def mixture(config: ModelConfig) -> list[tuple[Generator, PairSplit, float]]:
    """(generator, its modulus's pair split, weight) for every generator x modulus of the recipe."""
    ks = config.curriculum_bits or (config.k,)
    weights = config.curriculum_weights or tuple(1.0 for _ in ks)
    out = []
    for k, w in zip(ks, weights, strict=True):
        split = split_pairs(1 << k, config.test_fraction, config.split_seed, config.max_test_pairs)
        for spec in config.generators:
            out.append((parse_generator(spec, k), split, w / len(config.generators)))
    return out


def vocab_size(config: ModelConfig) -> int:
    """The stream's vocabulary: the most outputs of any generator x modulus in it (one token per number)."""
    return max(g.vocab for g, _, _ in mixture(config))


def training_batch(parts: list[tuple[Generator, PairSplit, float]], batch: int, length: int,
                   rng: np.random.Generator) -> np.ndarray:
    """A (batch, length) array of outputs: each row's generator/modulus drawn by weight, its pair from that
    modulus's training pairs."""
    weights = np.array([w for _, _, w in parts], dtype=float)
    counts = rng.multinomial(batch, weights / weights.sum())
    rows = []
    for (gen, split, _), n in zip(parts, counts, strict=True):
        if n:
            train = np.asarray(split.train, dtype=np.int64)
            rows.append(gen.sequences(train[rng.integers(0, len(train), size=n)], length, rng))
    data = np.concatenate(rows)
    return data[rng.permutation(batch)]


def training_batches(config: ModelConfig, seed: int) -> Iterator[np.ndarray]:
    """The recipe's `steps` training batches for `seed`, in order."""
    rng = np.random.default_rng(seed)
    parts = mixture(config)
    for _ in range(config.steps):
        yield training_batch(parts, config.batch, config.seq_len, rng)
