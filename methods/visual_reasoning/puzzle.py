"""The family's data types: one generated puzzle (what a solver sees, and the hidden truth), and its identity.

A puzzle's id names its task, difficulty, seed and index (`maze-easy-s3-0007`), and the puzzle is a pure function
of them, so a user's model answers a puzzle set exported once and its answers are scored against the same puzzles.
"""
from __future__ import annotations

import io
import zlib
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

TaskKind = Literal["jigsaw", "maze", "search", "chart"]
Difficulty = Literal["easy", "medium", "hard"]
TASKS: tuple[TaskKind, ...] = ("jigsaw", "maze", "search", "chart")
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")
TEST_STREAM, TRAIN_STREAM = 0, 1  # the test puzzles of a seed, and the training puzzles the CNN learns from


@dataclass(frozen=True)
class Puzzle:
    """A rendered puzzle: `image` (H, W, 3) uint8 and `prompt` are what a model sees, `query` the prompt's
    facts as data (the grid size, the asked-for target) for solvers that do not read text; `answer` is the
    canonical answer text and `truth` its structured form, hidden from solvers."""

    id: str
    kind: TaskKind
    difficulty: Difficulty
    image: np.ndarray
    prompt: str
    query: dict[str, Any]
    answer: str
    truth: dict[str, Any] = field(repr=False)


def puzzle_id(kind: str, difficulty: str, seed: int, index: int, stream: int = TEST_STREAM) -> str:
    prefix = "" if stream == TEST_STREAM else "train-"
    return f"{prefix}{kind}-{difficulty}-s{seed}-{index:04d}"


def puzzle_rng(kind: str, difficulty: str, seed: int, index: int, stream: int = TEST_STREAM) -> np.random.Generator:
    """The generator of one puzzle: its own stream, so puzzle i is the same whatever the set's size."""
    tag = zlib.crc32(f"{kind}/{difficulty}".encode())
    return np.random.default_rng([tag, stream, seed, index])


def png_bytes(image: np.ndarray) -> bytes:
    """The image as a PNG (Pillow at its strongest zlib level: exported sets stay small)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG", compress_level=9)
    return buffer.getvalue()
