"""The contract `motion_tokens.reconstruction`: tokenize and decode motion clips (MTVCraft's 4DMoT setting,
arXiv 2505.10238; spec shared/papers/mtvcraft.md).

A method sees the training clips and the test clips in three variants (clean, with Gaussian noise, retargeted
to other bone lengths) and returns a `Reconstruction` of every test clip, with the clean clips' tokens when it
quantises. Each seed draws a new train/test split, new noise and new retargeting. The split block: `test_fraction`
(0.2), `noise_mm` (the noise's standard deviation per coordinate, 20) and `retarget` (each bone of a test body
scaled by a factor from 1 +- retarget, uniform, 0.2).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema
from methods.motion_tokens.data import MotionSet
from methods.motion_tokens.problem import VARIANTS, MotionInputs, MotionTruth, Reconstruction
from methods.motion_tokens.scored import predictions_table, scored_motion
from methods.motion_tokens.skeleton import retarget


@dataclass(frozen=True)
class MotionSplit:
    test_fraction: float = 0.2
    noise_mm: float = 20.0
    retarget: float = 0.2


def motion_split(split: Mapping[str, Any]) -> MotionSplit:
    unknown = sorted(set(split) - {"test_fraction", "noise_mm", "retarget"})
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; the motion split takes test_fraction, noise_mm, retarget")
    spec = MotionSplit(**{key: float(value) for key, value in split.items()})
    if not 0 < spec.test_fraction < 1 or spec.noise_mm < 0 or not 0 <= spec.retarget < 1:
        raise ValueError(f"need 0 < test_fraction < 1, noise_mm >= 0 and 0 <= retarget < 1, got {spec}")
    return spec


class MotionReconstruction(Task):
    """Reconstruction of motion clips through a tokenizer, under noise and retargeting."""

    # A test clip is the sample: each (variant, joint) has every clip, with numbered frames (token positions for
    # the `codes` rows, joint -1); `scored_motion` checks that they fill the clips.
    predictions_schema = PredictionsSchema(
        (Column("variant", "text", description="clean, noisy, retargeted, or codes for a token row"),
         Column("clip", "integer", description="the clip's place among the test clips"),
         Column("frame", "integer"), Column("joint", "integer"),
         *(Column(axis, "number", description="metres") for axis in "xyz"),
         Column("token", "integer", description="the code's id on a codes row, else -1"),
         Column("codebook_size", "integer", description="the same on every row; 0: no codebook"),
         Column("bits", "number", may_be_empty=True,
                description="one clip's code in bits, the same on every row; empty: tokens x log2(codebook_size)")),
        sample="clip", per=("variant", "joint"), repeat="frame")

    def test_samples(self, instance: Instance) -> range:
        return range(len(instance.truth.clean))

    def check_split(self, split: Mapping[str, Any]) -> None:
        motion_split(split)

    def instance(self, data: MotionSet, split: Mapping[str, Any], seed: int) -> Instance:
        spec = motion_split(split)
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(data.clips))
        test_count = int(round(spec.test_fraction * len(order)))
        if not 0 < test_count < len(order):
            raise DataError(f"dataset '{data.name}': {len(order)} clips leave an empty train or test part",
                            field="split.test_fraction")
        train, test = data.clips[order[test_count:]], data.clips[order[:test_count]]
        noisy = test + rng.normal(0.0, spec.noise_mm / 1000.0, test.shape)
        scale = rng.uniform(1 - spec.retarget, 1 + spec.retarget, (test_count, test.shape[2]))
        moved = np.stack([retarget(clip, data.parents, factor) for clip, factor in zip(test, scale, strict=True)])
        inputs = MotionInputs(train, {"clean": test, "noisy": noisy, "retargeted": moved}, data.parents, data.fps)
        return Instance(inputs=inputs, truth=MotionTruth(test, moved, data.parents))

    def tiny_instance(self, seed: int) -> Instance:
        """24 generated clips of 16 frames on the 17-joint skeleton."""
        from methods.motion_tokens.data import generated

        return self.instance(generated(clips=24, frames=16, seed=seed), {"test_fraction": 0.25}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        inputs: MotionInputs = instance.inputs
        if not isinstance(output, Reconstruction):
            raise ValueError(f"a motion tokenizer returns a Reconstruction, got {type(output).__name__}")
        for variant in VARIANTS:
            decoded = np.asarray(output.decoded.get(variant))
            if decoded.shape != inputs.test[variant].shape or not np.isfinite(decoded).all():
                raise ValueError(f"the decoded {variant} clips must be finite and shaped "
                                 f"{inputs.test[variant].shape}, got {decoded.shape}")
        if output.tokens is not None:
            tokens = np.asarray(output.tokens)
            if tokens.ndim != 2 or len(tokens) != len(inputs.test["clean"]) or tokens.min() < 0 \
                    or tokens.max() >= output.codebook_size:
                raise ValueError(f"tokens are (clips, positions) ids below the codebook size {output.codebook_size}")
        return predictions_table(output)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_motion(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}
