"""The predictions table of a motion tokenizer and its reading back into arrays for the metrics.

One row per (variant, clip, frame, joint) with the decoded `x`, `y`, `z`; a quantising tokenizer adds rows of
variant `codes`, one per token (`frame` its position in the clip, `token` its id, `joint` -1, x, y, z 0).
`codebook_size` is on every row (0: no codebook), and `bits`, the size of one clip's code in bits, may be (the same
on every row; left empty, a quantising tokenizer's clip counts its tokens x log2 of the codebook size).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from harness import DataError
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
    table["bits"] = np.nan if output.bits_per_clip is None else float(output.bits_per_clip)
    return table


@dataclass(frozen=True)
class ScoredMotion:
    """The truth beside the decoded clips of each variant, the clean clips' tokens (None: no codebook) and the bits
    of one clip's code (NaN: unknown)."""

    truth: MotionTruth
    decoded: dict[str, np.ndarray]
    tokens: np.ndarray | None
    codebook_size: int
    bits_per_clip: float = math.nan

    @cached_property
    def renders(self) -> tuple[np.ndarray, np.ndarray]:
        """Stick figures of the decoded and the true clean clips (every RENDER_STRIDE-th frame), one camera."""
        truth = self.truth.clean[:, ::RENDER_STRIDE].reshape(-1, *self.truth.clean.shape[2:])
        decoded = self.decoded["clean"][:, ::RENDER_STRIDE].reshape(truth.shape)
        centre = truth[:, 0]
        return (render_stick_figures(decoded, self.truth.parents, centre),
                render_stick_figures(truth, self.truth.parents, centre))


def scored_motion(truth: MotionTruth, table: pd.DataFrame) -> ScoredMotion:
    """The arrays of a table the engine checked (each clip once per variant, joint and frame)."""
    shape = truth.clean.shape
    unknown = sorted(set(table["variant"]) - {*VARIANTS, CODES})
    if unknown:
        raise DataError(f"unknown variant {unknown[0]!r}", field="variant", hint=f"Use {', '.join(VARIANTS)}, {CODES}.")
    decoded = {}
    for variant in VARIANTS:
        rows = table[table["variant"] == variant]
        _check_filled(rows, variant, shape[:3])
        decoded[variant] = rows.sort_values(["clip", "frame", "joint"])[["x", "y", "z"]].to_numpy().reshape(shape)
    codes = table[table["variant"] == CODES]
    codebook_size = int(table["codebook_size"].iloc[0])
    tokens = None
    if len(codes):
        _check_filled(codes, CODES, (shape[0], max(len(codes) // shape[0], 1), 1))
        if not codes["token"].between(0, codebook_size - 1).all():
            raise DataError(f"a token outside the codebook's {codebook_size} codes", field="token")
        tokens = codes.sort_values(["clip", "frame"])["token"].to_numpy().reshape(shape[0], -1)
    return ScoredMotion(truth, decoded, tokens, codebook_size, _bits_per_clip(table, tokens, codebook_size))


def _bits_per_clip(table: pd.DataFrame, tokens: np.ndarray | None, codebook_size: int) -> float:
    """The `bits` column's value where given (one value for the whole table), else tokens x log2(codebook size)."""
    given = table["bits"].dropna().unique() if "bits" in table else np.array([])
    if len(given) > 1:
        raise DataError(f"bits holds {len(given)} different values; give one clip's code size on every row",
                        field="bits")
    if len(given):
        return float(given[0])
    if tokens is not None:
        return tokens.shape[1] * math.log2(codebook_size)
    return math.nan


def _check_filled(rows: pd.DataFrame, variant: str, shape: tuple[int, int, int]) -> None:
    """Each (clip, frame, joint) once and each clip a test clip (the engine's check), every frame and joint inside
    `shape` and as many rows as it has cells: then every cell has its row (a token row's joint is -1)."""
    if len(rows) != shape[0] * shape[1] * shape[2]:
        cells = " x ".join(map(str, shape))
        raise DataError(f"{variant}: {len(rows)} rows, not one per clip, frame and joint ({cells})", field="variant",
                        hint="Give every clip the same frames and joints.")
    for column, size, first in (("frame", shape[1], 0), ("joint", shape[2], -1 if variant == CODES else 0)):
        outside = rows[column][~rows[column].between(first, first + size - 1)]
        if len(outside):
            raise DataError(f"{variant}: {column} {outside.iloc[0]} is outside the clips' {size}", field=column)
