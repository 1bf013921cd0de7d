"""The prng_learning family's hot path: decoder training steps (d = 128, 2 layers, batch 32, 32 numbers, one
thread; the issue's budget is 30 CPU-minutes per trained configuration) and generating a batch of sequences."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")


def test_fifty_training_steps_of_the_d128_decoder(benchmark):
    from methods.prng_learning.params import ModelConfig
    from methods.prng_learning.training import train

    config = ModelConfig(k=6, steps=50, eval_every=0)

    def steps() -> int:
        _, record = train(config, seed=0)
        return int(record["steps"])

    benchmark.pedantic(steps, rounds=2, iterations=1)
    benchmark.extra_info["steps"] = config.steps


def test_generating_4096_sequences_of_64_xsl_rr_outputs(benchmark):
    import numpy as np

    from methods.prng_learning.generators import parse_generator, split_pairs

    gen = parse_generator("xsl_rr:3", 16)
    pairs = np.asarray(split_pairs(1 << 10, 0.125, 97).train[:4096], dtype=np.int64)
    out = benchmark(lambda: gen.sequences(pairs, 64, np.random.default_rng(0)))
    assert out.shape == (len(pairs), 64)
