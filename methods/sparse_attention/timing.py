"""Wall time of a step on CPU or GPU (`timed`): the prefill's estimation and attention, the first token."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import torch

T = TypeVar("T")


def timed(fn: Callable[[], T], device: torch.device) -> tuple[T, float]:
    """`fn()` and its wall time in ms, waiting for queued CUDA work on both sides."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start = time.perf_counter()
    result = fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return result, (time.perf_counter() - start) * 1e3
