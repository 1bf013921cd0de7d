"""The predictions table of a motion tokenizer and its reading back into arrays for the metrics.

One row per (variant, clip, frame, joint) with the decoded `x`, `y`, `z`; a quantising tokenizer adds rows of
variant `codes`, one per token (`frame` its position in the clip, `token` its id, `joint` -1, x, y, z 0).
`codebook_size` is on every row (0: no codebook).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from methods.motion_tokens.problem import VARIANTS, MotionTruth, Reconstruction
from methods.motion_tokens.render import render_stick_figures

CODES = "codes"
RENDER_STRIDE = 5  # frames 0, 5, 10, ...: 5 is prime to the keyframe strides, so keyframes are not all rendered


def predictions_table(output: Reconstruction) -> pd.DataFrame:
    tables = []
    for variant in VARIANTS:
        decoded = np.asarray(output.decoded[variant], dtype=np.float64)
        clip, frame, joint = np.indices(decoded.shape[:3]).reshape(3, -1)
        flat = decoded.reshape(-1, 3)
        tables.append(pd.DataFrame({"variant": variant, "clip": clip, "frame": frame, "joint": joint,
                                    "x": flat[:, 0], "y": flat[:, 1], "z": flat[:, 2], "token": -1}))
    if output.tokens is not None:
        clip, position = np.indices(output.tokens.shape).reshape(2, -1)
        tables.append(pd.DataFrame({"variant": CODES, "clip": clip, "frame": position, "joint": -1, "x": 0.0,
                                    "y": 0.0, "z": 0.0, "token": output.tokens.ravel().astype(np.int64)}))
    table = pd.concat(tables, ignore_index=True)
    table["codebook_size"] = int(output.codebook_size)
    return table


@dataclass(frozen=True)
class ScoredMotion:
    """The truth beside the decoded clips of each variant and the clean clips' tokens (None: no codebook)."""

    truth: MotionTruth
    decoded: dict[str, np.ndarray]
    tokens: np.ndarray | None
    codebook_size: int

    @cached_property
    def renders(self) -> tuple[np.ndarray, np.ndarray]:
        """Stick figures of the decoded and the true clean clips (every RENDER_STRIDE-th frame), one camera."""
        truth = self.truth.clean[:, ::RENDER_STRIDE].reshape(-1, *self.truth.clean.shape[2:])
        decoded = self.decoded["clean"][:, ::RENDER_STRIDE].reshape(truth.shape)
        centre = truth[:, 0]
        return (render_stick_figures(decoded, self.truth.parents, centre),
                render_stick_figures(truth, self.truth.parents, centre))


def scored_motion(truth: MotionTruth, table: pd.DataFrame) -> ScoredMotion:
    shape = truth.clean.shape
    decoded = {}
    for variant in VARIANTS:
        rows = table[table["variant"] == variant].sort_values(["clip", "frame", "joint"])
        decoded[variant] = rows[["x", "y", "z"]].to_numpy().reshape(shape)
    codes = table[table["variant"] == CODES].sort_values(["clip", "frame"])
    tokens = codes["token"].to_numpy().reshape(shape[0], -1) if len(codes) else None
    return ScoredMotion(truth, decoded, tokens, int(table["codebook_size"].iloc[0]))
