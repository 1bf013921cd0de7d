"""The contract `motion_tokens.video`: score generated videos against the real ones (MTVCraft's T-MTV-1 columns
that run offline: L1, PSNR, SSIM on frames; FID / FID-VID / FVD as the Fréchet distance of features users bring).

A method returns a `VideoClip` (its frames and/or features). Predictions table: one row per frame (`kind` frame)
and per feature vector (`kind` feature), `index` its position and `data` its bytes (uint8 frames, float64
features); scoring decodes them with the real set's shapes. A metric is NaN when its input is absent.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from harness import Instance, Metric, Task
from harness.contracts import reject_split_keys
from methods.motion_tokens.video_data import VideoClip, VideoSet


class VideoScoring(Task):
    """The data are fixed files, so every seed gives the same instance and the same scores."""

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "motion_tokens.video", "the videos are the user's files")

    def instance(self, data: VideoSet, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data.generated, truth=data.real)

    def tiny_instance(self, seed: int) -> Instance:
        """The shipped example."""
        from methods.motion_tokens.video_data import example

        return self.instance(example(), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, VideoClip):
            raise ValueError(f"a video method returns a VideoClip, got {type(output).__name__}")
        rows = []
        for kind, values in (("frame", output.frames), ("feature", output.features)):
            if values is not None:
                rows += [{"kind": kind, "index": i, "data": np.ascontiguousarray(v).tobytes()}
                         for i, v in enumerate(values)]
        return pd.DataFrame(rows, columns=["kind", "index", "data"])

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        scored = scored_videos(instance.truth, predictions)
        return {key: metric(scored) for key, metric in metrics.items()}


def _decoded(table: pd.DataFrame, kind: str, dtype: type, row_shape: tuple[int, ...]) -> np.ndarray | None:
    rows = table[table["kind"] == kind].sort_values("index")
    if rows.empty:
        return None
    return np.stack([np.frombuffer(data, dtype=dtype).reshape(row_shape) for data in rows["data"]])


def scored_videos(real: VideoClip, table: pd.DataFrame) -> tuple[VideoClip, VideoClip]:
    """(generated, real) read back from a predictions table."""
    frames = None if real.frames is None else _decoded(table, "frame", np.uint8, real.frames.shape[1:])
    features = None if real.features is None else _decoded(table, "feature", np.float64, real.features.shape[1:])
    return VideoClip(frames, features), real
