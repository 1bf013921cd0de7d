"""Motion tokens, one torch thread: 4DMoT's training (the motion_tokenizer suite's recipe: 3000 steps of 4 clips of
32 frames, 17 joints, width 16, latent 8) and the Fréchet distance of 10,000 x 2,048 features (the issue's figure:
under 10 s), both quoted in methods/motion_tokens/README.md."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def motion():
    from methods.motion_tokens.data import generated
    from methods.motion_tokens.task import MotionReconstruction

    return MotionReconstruction().instance(generated(skeleton="h36m17", clips=160, frames=32, seed=0), {}, seed=0)


def test_train_4dmot_and_reconstruct(benchmark, motion, one_thread):
    """One 4DMoT run of the main suite: 3000 Adam steps, then the test clips of three variants decoded."""
    from harness.context import RunContext
    from methods.motion_tokens.fourdmot import FourDMoT

    output = benchmark.pedantic(lambda: FourDMoT().run(motion.inputs, RunContext(seed=0, device="cpu", threads=1)),
                                rounds=1, iterations=1)
    benchmark.extra_info["train_clips"] = int(len(motion.inputs.train))
    benchmark.extra_info["tokens_per_clip"] = int(output.tokens.shape[1])


def test_frechet_distance_10000_by_2048(benchmark):
    """Covariances, a Cholesky factor and one symmetric eigenvalue decomposition (numpy's threads as they are)."""
    from methods.motion_tokens.video_metrics import frechet_distance

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(10_000, 2048)), rng.normal(size=(10_000, 2048)) * 1.1 + 0.1
    distance = benchmark.pedantic(frechet_distance, args=(a, b), rounds=2, iterations=1)
    benchmark.extra_info["distance"] = float(distance)
